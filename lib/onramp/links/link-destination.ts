/**
 * Where an on-ramp link delivers, as the buyer is shown it (issue 14): a link's `wallet` is "your
 * Chargeport wallet" only when it is one of the signed-in buyer's own addresses — whatever the label
 * says. Any other address is an external wallet, and its label is the merchant's word: verified only
 * when the link carries a valid signature of that merchant (`verifiedBy`).
 */
import type { OnrampDestination } from '@/lib/onramp/links/destination';
import type { ChainFamily } from '@/lib/chains/registry';

export function linkDestination(input: {
  wallet: { address: string; family: ChainFamily; label: string | null };
  /** The signed-in buyer's own addresses (none when signed out). */
  ownAddresses: readonly string[];
  /** The signing merchant's name when the link's signature is valid. */
  verifiedBy: string | null;
}): OnrampDestination {
  const isOwn = input.ownAddresses.some((own) => own.toLowerCase() === input.wallet.address.toLowerCase());
  if (isOwn) return { kind: 'own', wallets: { [input.wallet.family]: input.wallet.address } };
  return {
    kind: 'link',
    address: input.wallet.address,
    label: input.wallet.label,
    verifiedBy: input.wallet.label ? input.verifiedBy : null,
  };
}
