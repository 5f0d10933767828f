import type { SwapProviderOption } from '@/lib/swap/swap-availability';
import type { SwapProgress } from '@/lib/swap/swap-progress';
import { SwapChoice } from './swap-choice';
import { SwapHeldFundsForm } from './swap-held-funds-form';
import { SwapOnrampFunding } from './swap-onramp-funding';

/**
 * The checkout's "Swap on-ramp" panel for a charge in a swap-pair token (PZP on BNB Smart Chain): pay
 * with USDC you hold, or buy USDC that is converted. When the flow is not offered here, it says why.
 */
export function SwapOnrampPanel({
  chargeId,
  targetSymbol,
  fundingSymbol,
  chainName,
  unavailableReason,
  heldFunds,
  onramp,
  progress,
}: {
  chargeId: string;
  targetSymbol: string;
  fundingSymbol: string;
  chainName: string;
  /** The whole flow is not offered (e.g. United States), and why. */
  unavailableReason?: string;
  heldFunds: { signedIn: boolean; signInHref: string };
  onramp: { available: boolean; reason?: string; providers: SwapProviderOption[] };
  progress: SwapProgress | null;
}) {
  return (
    <section aria-labelledby="swap-heading" className="flex flex-col gap-3" data-testid="swap-onramp">
      <h2 id="swap-heading" className="text-sm font-semibold">
        Pay in {targetSymbol} with {fundingSymbol}
      </h2>
      {unavailableReason ? (
        <p role="status" className="rounded-lg bg-amber-50 p-3 text-sm text-amber-900" data-testid="swap-unavailable">
          {unavailableReason}
        </p>
      ) : (
        <>
          <p className="text-xs text-slate-500">
            {fundingSymbol} on {chainName} is swapped on a decentralised exchange into exactly the {targetSymbol} this charge needs. You see
            the price first; the swap never takes more than the maximum shown.
          </p>
          <SwapChoice
            options={[
              {
                id: 'held',
                label: `Pay with ${fundingSymbol} you hold`,
                hint: `From your Chargeport wallet on ${chainName}`,
                content: <SwapHeldFundsForm chargeId={chargeId} signedIn={heldFunds.signedIn} signInHref={heldFunds.signInHref} />,
              },
              {
                id: 'card',
                label: 'Buy with card',
                hint: `${fundingSymbol} bought for you, converted to ${targetSymbol}`,
                content: onramp.available ? (
                  <SwapOnrampFunding chargeId={chargeId} providers={onramp.providers} initialProgress={progress} />
                ) : (
                  <p role="status" className="text-sm text-slate-600" data-testid="swap-onramp-unavailable">
                    {onramp.reason}
                  </p>
                ),
              },
            ]}
          />
        </>
      )}
    </section>
  );
}
