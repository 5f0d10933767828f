/**
 * A swap execution's states: recorded `signed` before anything is broadcast (approve and swap
 * transactions with their nonces and bytes), `broadcast` once the node has them, then `confirmed`
 * (the swap's receipt succeeded: the target token reached the recipient) or `failed` (reverted — price
 * past the limit or deadline passed —, its nonce taken by another transaction, or refused before
 * signing because the pool had moved). A failed swap moved nothing but gas: the input stays with the payer.
 */
export const SWAP_EXECUTION_STATUSES = ['signed', 'broadcast', 'confirmed', 'failed'] as const;
export type SwapExecutionStatus = (typeof SWAP_EXECUTION_STATUSES)[number];

/** held_funds: the signed-in payer's own USDC; onramp_conversion: USDC an on-ramp delivered to the charge's deposit address. */
export const SWAP_BRANCHES = ['held_funds', 'onramp_conversion'] as const;
export type SwapBranch = (typeof SWAP_BRANCHES)[number];
