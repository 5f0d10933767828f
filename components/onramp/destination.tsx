import Link from 'next/link';
import type { ChainFamily } from '@/lib/chains/registry';
import { destinationAddress, type OnrampDestination } from '@/lib/onramp/links/destination';
import { shortAddress } from './format';

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
