import Link from 'next/link';
import type { ChainFamily } from '@/lib/chains/registry';
import { shortAddress } from './format';

/** Where the tokens go: decided on the server (app/onramp/page.tsx), shown here. */
export type OnrampDestination =
  /**
   * The link's `wallet` when it is not the buyer's own: always an external wallet. Its `wallet_label`
   * is the merchant's word: shown as verified only when the link is signed (`verifiedBy`: the
   * signing merchant's name), otherwise as an unverified label.
   */
  | { kind: 'link'; address: string; label: string | null; verifiedBy: string | null }
  /** The signed-in buyer's own service wallets, one per chain family. */
  | { kind: 'own'; wallets: Partial<Record<ChainFamily, string>> }
  /** Neither: the buyer must sign in (or verify their e-mail) first. */
  | { kind: 'signin'; href: string; message: string };

export function destinationAddress(destination: OnrampDestination, family: ChainFamily): string | undefined {
  switch (destination.kind) {
    case 'link':
      return destination.address;
    case 'own':
      return destination.wallets[family];
    case 'signin':
      return undefined;
  }
}

export function DestinationLine({
  destination,
  family,
  chainName,
}: {
  destination: OnrampDestination;
  family: ChainFamily;
  chainName: string;
}) {
  if (destination.kind === 'signin') {
    return (
      <p className="rounded-lg bg-slate-100 px-3 py-2 text-sm" data-testid="destination">
        <Link href={destination.href} className="font-semibold text-brand-600 underline underline-offset-4">
          {destination.message}
        </Link>
      </p>
    );
  }
  const address = destinationAddress(destination, family);
  const addressText = address ? (
    <span className="font-mono text-xs text-slate-600" title={address} data-testid="destination-address">
      · {shortAddress(address)}
    </span>
  ) : (
    <span className="text-rose-700">· no wallet on {chainName}</span>
  );
  if (destination.kind === 'own') {
    return (
      <p className="rounded-lg bg-slate-100 px-3 py-2 text-sm break-words" data-testid="destination">
        <span className="text-slate-600">Deliver to</span>{' '}
        <strong className="font-semibold" data-testid="destination-label">
          your Chargeport wallet
        </strong>{' '}
        {addressText}
      </p>
    );
  }
  // A wallet from the link: never "yours". The label is plain text (React escapes it), bounded on the server.
  return (
    <div className="flex flex-col gap-1 rounded-lg bg-slate-100 px-3 py-2 text-sm break-words" data-testid="destination">
      <p>
        <span className="text-slate-600">Deliver to</span>{' '}
        <strong className="font-semibold" data-testid="destination-label">
          an external wallet
        </strong>{' '}
        {addressText}
      </p>
      {destination.label &&
        (destination.verifiedBy ? (
          <p data-testid="destination-merchant-label" data-verified="true">
            “{destination.label}” — label verified: the link is signed by {destination.verifiedBy}
          </p>
        ) : (
          <p className="text-slate-600" data-testid="destination-merchant-label" data-verified="false">
            Labelled “{destination.label}” by the link (unverified: anyone can write a label)
          </p>
        ))}
    </div>
  );
}
