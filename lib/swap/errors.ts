/**
 * Errors of the swap on-ramp with a stable `code` the checkout branches on and a message the payer can
 * act on. Account and charge errors (PIN, charge not payable, balance, chain down) stay AppErrors.
 */
export type SwapErrorCode =
  /** The flow is not offered here: not a configured pair, United States, or another provider. */
  | 'swap_unavailable'
  /** The pool moved: the fresh quote needs more input than the payer accepted. */
  | 'slippage_exceeded'
  /** The router could not quote (no pool, not enough liquidity, chain unreachable). */
  | 'quote_unavailable';

export class SwapError extends Error {
  override name = 'SwapError';
  constructor(
    readonly code: SwapErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export function isSwapError(error: unknown): error is SwapError {
  return error instanceof SwapError;
}
