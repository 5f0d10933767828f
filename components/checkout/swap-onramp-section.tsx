import { checkoutPath } from '@/lib/charges/checkout-popup';
import { CHAINS } from '@/lib/chains/registry';
import { swapAvailability } from '@/lib/swap/swap-availability';
import { swapPairFor } from '@/lib/chains/swap-pairs';
import { loadSwapProgress } from '@/lib/swap/swap-progress';
import { SwapOnrampPanel } from './swap-onramp-panel';

/** Server side of the panel: only for swap-pair charges; availability for the checkout's location. */
export async function SwapOnrampSection({
  chargeId,
  chain,
  tokenAddress,
  country,
  complianceCountry,
  signedIn,
  popupOrigin,
}: {
  chargeId: string;
  chain: string;
  tokenAddress: string;
  country: string;
  /** The server-side location the "not in the United States" rule uses (lib/geo/compliance-country.ts). */
  complianceCountry: string | null;
  signedIn: boolean;
  popupOrigin?: string;
}) {
  const pair = swapPairFor(chain, tokenAddress);
  if (!pair) return null;
  const [availability, progress] = await Promise.all([
    swapAvailability({ country, complianceCountry, chain, tokenAddress }),
    loadSwapProgress(chargeId),
  ]);
  return (
    <SwapOnrampPanel
      chargeId={chargeId}
      targetSymbol={pair.target.symbol}
      fundingSymbol={pair.funding.symbol}
      chainName={CHAINS[pair.chain].displayName}
      unavailableReason={availability.available ? undefined : availability.reason}
      heldFunds={{ signedIn, signInHref: `/signin?callbackUrl=${encodeURIComponent(checkoutPath(chargeId, popupOrigin))}` }}
      onramp={availability.available ? availability.onramp : { available: false, providers: [] }}
      progress={progress ?? null}
    />
  );
}
