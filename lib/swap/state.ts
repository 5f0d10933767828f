/**
 * A swap execution's states: recorded `signed` with its approve and swap transfers (lib/transactions/)
 * before anything is sent, `broadcast` once they are submitted, then `confirmed` (the swap transfer
 * confirmed: the target token reached the recipient) or `failed` (reverted — price past the limit or
 * deadline passed —, its nonce taken by another transaction, or refused before signing because the pool
 * had moved). A failed swap moved nothing but gas: the input stays with the payer.
 */
import { defineStateMachine } from '@/lib/state-machine';

export const SWAP_EXECUTION_STATUSES = ['signed', 'broadcast', 'confirmed', 'failed'] as const;
export type SwapExecutionStatus = (typeof SWAP_EXECUTION_STATUSES)[number];

export const swapExecutionMachine = defineStateMachine<SwapExecutionStatus>({
  name: 'swap execution',
  statuses: SWAP_EXECUTION_STATUSES,
  transitions: {
    signed: ['broadcast', 'confirmed', 'failed'],
    broadcast: ['confirmed', 'failed'],
    confirmed: [],
    failed: [],
  },
});

/** held_funds: the signed-in payer's own USDC; onramp_conversion: USDC an on-ramp delivered to the charge's deposit address. */
export const SWAP_BRANCHES = ['held_funds', 'onramp_conversion'] as const;
export type SwapBranch = (typeof SWAP_BRANCHES)[number];
