import { formatExactTokenAmount, formatTokenAmount } from '@/lib/format-amount';

/**
 * A token amount for reading: rounded for its token (lib/format-amount.ts), never broken across lines,
 * the exact value on hover. Where the payer must send or type the exact amount, show `exact` instead.
 */
export function Amount({
  value,
  symbol,
  exact = false,
  roundUp = false,
  className = '',
  testId,
}: {
  /** Exact decimal text ("5.063162957899800007"). */
  value: string;
  symbol: string;
  /** Show every digit (the amount to send), grouped in thousands. */
  exact?: boolean;
  /** A limit ("at most"): rounded up, never shown lower than it is. */
  roundUp?: boolean;
  className?: string;
  testId?: string;
}) {
  const shown = exact ? formatExactTokenAmount(value, symbol) : formatTokenAmount(value, symbol, roundUp ? { rounding: 'up' } : {});
  const full = formatExactTokenAmount(value, symbol);
  return (
    <span
      className={`whitespace-nowrap tabular-nums ${className}`}
      {...(shown !== full ? { title: full } : {})}
      {...(testId ? { 'data-testid': testId } : {})}
    >
      {shown}
    </span>
  );
}
