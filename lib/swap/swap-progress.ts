/**
 * What the checkout shows of a swap-pair charge's conversion: the latest on-ramp order bought for it,
 * the USDC now at its deposit address, and the swap (in flight, done, or refused with the reason).
 * Public by charge id, like the checkout's status (the id is the capability the paymentUrl carries).
 */
import { and, desc, eq } from 'drizzle-orm';
import { erc20Abi, type Address } from 'viem';
import { publicClientFor } from '@/lib/chains/clients';
import { explorerLink } from '@/lib/chains/explorer-link';
import { getDb } from '@/lib/db/client';
import { charges, depositAddresses, onrampOrders, onrampProviders, swapExecutions } from '@/lib/db/schema';
import { formatAmount } from '@/lib/money';
import { RETRY_AFTER_MS } from './convert-swap-funding';
import { swapPairFor } from '@/lib/chains/swap-pairs';

type SwapStage = 'idle' | 'buying' | 'funded' | 'retrying' | 'swapping' | 'swapped' | 'swap_failed';

export interface SwapProgress {
  stage: SwapStage;
  /** One sentence for the payer. */
  message: string;
  fundingSymbol: string;
  targetSymbol: string;
  /** USDC at the deposit address now (null when the chain cannot be read). */
  fundingHeld: string | null;
  order: { status: string; providerName: string; amount: string; failureReason: string | null } | null;
  swap: {
    status: string;
    txHash: string | null;
    explorerUrl: string | null;
    amountOut: string;
    amountIn: string | null;
    error: string | null;
  } | null;
}

export async function loadSwapProgress(chargeId: string, now = new Date()): Promise<SwapProgress | undefined> {
  const [charge] = await getDb().select().from(charges).where(eq(charges.id, chargeId));
  const pair = charge && swapPairFor(charge.chain, charge.tokenAddress);
  if (!charge || !pair) return undefined;
  const [deposit] = await getDb().select().from(depositAddresses).where(eq(depositAddresses.chargeId, chargeId));
  const [latestSwap] = await getDb()
    .select()
    .from(swapExecutions)
    .where(eq(swapExecutions.chargeId, chargeId))
    .orderBy(desc(swapExecutions.createdAt))
    .limit(1);
  const [latestOrder] = await getDb()
    .select({ order: onrampOrders, providerName: onrampProviders.displayName })
    .from(onrampOrders)
    .innerJoin(onrampProviders, eq(onrampProviders.id, onrampOrders.providerId))
    .where(and(eq(onrampOrders.chargeId, chargeId), eq(onrampOrders.purpose, 'swap_funding')))
    .orderBy(desc(onrampOrders.createdAt))
    .limit(1);
  const held =
    deposit &&
    (await publicClientFor(pair.chain)
      ?.readContract({
        address: pair.funding.address as Address,
        abi: erc20Abi,
        functionName: 'balanceOf',
        args: [deposit.address as Address],
      })
      .catch(() => undefined));
  const fmtIn = (units: bigint) => formatAmount(units, pair.funding.decimals);
  const fmtOut = (units: bigint) => formatAmount(units, pair.target.decimals);

  const swap = latestSwap && {
    status: latestSwap.status,
    txHash: latestSwap.swapTxHash,
    explorerUrl: explorerLink(pair.chain, latestSwap.swapTxHash) ?? null,
    amountOut: fmtOut(latestSwap.amountOut),
    amountIn: latestSwap.amountIn === null ? null : fmtIn(latestSwap.amountIn),
    error: latestSwap.error,
  };
  const order = latestOrder && {
    status: latestOrder.order.status,
    providerName: latestOrder.providerName,
    amount: formatAmount(latestOrder.order.cryptoBaseUnits, latestOrder.order.tokenDecimals),
    failureReason: latestOrder.order.failureReason,
  };
  const { stage, message } = stageOf({
    swap,
    order,
    held,
    now,
    retryAt: latestSwap ? latestSwap.createdAt.getTime() + RETRY_AFTER_MS : 0,
    pairSymbols: [pair.funding.symbol, pair.target.symbol],
  });
  return {
    stage,
    message,
    fundingSymbol: pair.funding.symbol,
    targetSymbol: pair.target.symbol,
    fundingHeld: held === undefined || held === null ? null : fmtIn(held),
    order: order ?? null,
    swap: swap ?? null,
  };
}

function stageOf(input: {
  swap: { status: string; amountOut: string; amountIn: string | null; error: string | null } | undefined;
  order: { status: string; providerName: string; amount: string; failureReason: string | null } | undefined;
  held: bigint | undefined | null;
  now: Date;
  retryAt: number;
  pairSymbols: [string, string];
}): { stage: SwapStage; message: string } {
  const [funding, target] = input.pairSymbols;
  const { swap, order } = input;
  switch (swap?.status) {
    case 'signed':
    case 'broadcast':
      return { stage: 'swapping', message: `Swapping ${funding} into ${swap.amountOut} ${target}…` };
    case 'confirmed':
      return {
        stage: 'swapped',
        message: `Swapped ${swap.amountIn ?? ''} ${funding} into ${swap.amountOut} ${target}. Waiting for the network to confirm the payment.`,
      };
    case 'failed':
      if (input.held && input.held > 0n) {
        const seconds = Math.max(0, Math.ceil((input.retryAt - input.now.getTime()) / 1000));
        return {
          stage: 'retrying',
          message: `The swap could not run (${swap.error ?? 'price moved'}). Your ${funding} is safe at the charge's address; trying again${seconds ? ` in ${seconds} s` : ' now'}.`,
        };
      }
      return { stage: 'swap_failed', message: `The swap could not run (${swap.error ?? 'unknown reason'}). Nothing was taken.` };
  }
  if (input.held && input.held > 0n) return { stage: 'funded', message: `${funding} received. Converting it into ${target} shortly…` };
  if (order) {
    if (order.status === 'failed' || order.status === 'expired') {
      return {
        stage: 'idle',
        message: `The ${order.providerName} purchase ${order.status === 'failed' ? `failed${order.failureReason ? `: ${order.failureReason}` : ''}` : 'expired'}. You can start a new one.`,
      };
    }
    return {
      stage: 'buying',
      message: `Waiting for ${order.providerName} to deliver ${order.amount} ${funding} (purchase ${order.status}).`,
    };
  }
  return { stage: 'idle', message: '' };
}
