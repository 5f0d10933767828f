import type { ChainFamily } from '@/lib/chains/registry';

/** Where the tokens go: decided on the server (app/onramp/page.tsx, link-destination.ts), shown by components/onramp/destination.tsx. */
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
