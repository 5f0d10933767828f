/**
 * One difference reconciliation reports, on EVM (./reconcile-chains.ts) and on Solana (./reconcile-solana.ts):
 * an address and token where the ledger's expected balance and the chain's disagree.
 */
import type { ChainName } from '@/lib/chains/registry';

export interface Discrepancy {
  chain: ChainName;
  address: string;
  /** What the address is: a charge's deposit address, a merchant's or a user's wallet, the gas tank. */
  holder: string;
  token: string;
  symbol: string;
  decimals: number;
  expected: bigint;
  actual: bigint;
  /** actual − expected: positive = unrecorded funds, negative = value left without a record. */
  difference: bigint;
  chargeIds: string[];
}
