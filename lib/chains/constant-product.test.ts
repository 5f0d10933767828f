import { describe, expect, it } from 'vitest';
import { getAmountIn, getAmountOut, keepsInvariant, maxInputWithSlippage } from './constant-product';

/** A small deterministic generator, so a failure names the case that broke. */
function* cases(count: number): Generator<{ reserveIn: bigint; reserveOut: bigint; amount: bigint }> {
  let seed = 42n;
  const next = (bits: bigint) => {
    seed = (seed * 6364136223846793005n + 1442695040888963407n) % (1n << 64n);
    return (seed % (1n << bits)) + 1n;
  };
  for (let i = 0; i < count; i++) {
    const reserveIn = next(96n);
    const reserveOut = next(96n) + 2n;
    yield { reserveIn, reserveOut, amount: (next(64n) % (reserveOut - 1n)) + 1n };
  }
}

describe('constant-product math (PancakeSwap v2, 0.25% fee)', () => {
  it('matches hand-computed values', () => {
    // 1000 × 9975 × 10000 / (10000 × 10000 + 1000 × 9975) = 907.0…
    expect(getAmountOut(1000n, 10_000n, 10_000n)).toBe(907n);
    // 10000 × 907 × 10000 / (9093 × 9975) = 999.97… → 999 + 1
    expect(getAmountIn(907n, 10_000n, 10_000n)).toBe(1000n);
    // 100 PZP from the seeded demo pool (50 000 USDC : 1 000 000 PZP, 18 decimals): ≈ 5.0130 USDC (price 0.05 + fee + impact)
    const usdc = getAmountIn(100n * 10n ** 18n, 50_000n * 10n ** 18n, 1_000_000n * 10n ** 18n);
    expect(usdc).toBeGreaterThan(5_013_000_000_000_000_000n);
    expect(usdc).toBeLessThan(5_013_100_000_000_000_000n);
  });

  it("getAmountIn is the least input the pair accepts (give or take the library's +1)", () => {
    for (const { reserveIn, reserveOut, amount } of cases(500)) {
      const amountIn = getAmountIn(amount, reserveIn, reserveOut);
      const after = (input: bigint) =>
        keepsInvariant({
          reserve0: reserveIn,
          reserve1: reserveOut,
          balance0: reserveIn + input,
          balance1: reserveOut - amount,
          amount0In: input,
          amount1In: 0n,
        });
      expect(after(amountIn), `in for ${amount} of ${reserveIn}/${reserveOut}`).toBe(true);
      expect(after(amountIn - 2n), `in - 2 for ${amount} of ${reserveIn}/${reserveOut}`).toBe(false);
    }
  });

  it('getAmountOut is the most output the pair releases for an input', () => {
    for (const { reserveIn, reserveOut, amount } of cases(500)) {
      const out = getAmountOut(amount, reserveIn, reserveOut);
      const after = (output: bigint) =>
        keepsInvariant({
          reserve0: reserveIn,
          reserve1: reserveOut,
          balance0: reserveIn + amount,
          balance1: reserveOut - output,
          amount0In: amount,
          amount1In: 0n,
        });
      expect(after(out)).toBe(true);
      expect(after(out + 1n)).toBe(false);
    }
  });

  it('refuses what no pool can do', () => {
    expect(() => getAmountIn(10n, 100n, 10n)).toThrow(RangeError);
    expect(() => getAmountOut(0n, 100n, 100n)).toThrow(RangeError);
    expect(() => getAmountOut(1n, 0n, 100n)).toThrow(RangeError);
  });

  it('adds the slippage allowance, rounded up, never down', () => {
    expect(maxInputWithSlippage(1000n, 100)).toBe(1010n);
    expect(maxInputWithSlippage(1001n, 100)).toBe(1012n); // 1011.01 → 1012
    expect(maxInputWithSlippage(5n, 0)).toBe(5n);
    expect(() => maxInputWithSlippage(5n, -1)).toThrow(RangeError);
  });
});
