/**
 * The chain reads before a spend, for either family: prepareTransfer on EVM chains (gas, fees, nonce),
 * prepareSolanaTransfer on Solana (balances, blockhash, the gas tank as fee payer). Paths that move value
 * on any chain (balance payments, withdrawals, refunds, wallet sends) call this, then recordChainTransfer.
 * On an EVM chain whose smart accounts are on (ADR 0035), a sponsored spend is relayed: the gas tank sends
 * the sender's own smart-account call and pays its gas, no top-up (the sender never needs native coin).
 */
import { CHAINS, type ChainName } from '@/lib/chains/registry';
import { smartAccountStatus } from '@/lib/smart-accounts/smart-account-status';
import type { SolanaRpcOptions } from '@/lib/chains/solana-rpc';
import { prepareTransfer, type PreparedTransfer, type TransferSpend } from './prepare-transfer';
import { prepareSolanaTransfer, type PreparedSolanaTransfer } from './solana/prepare-solana-transfer';

export type ChainPreparedTransfer = PreparedTransfer | PreparedSolanaTransfer;

export function isSolanaPrepared(prepared: ChainPreparedTransfer): prepared is PreparedSolanaTransfer {
  return 'family' in prepared && prepared.family === 'solana';
}

export async function prepareChainTransfer(
  input: { chain: ChainName; from: string; spend: TransferSpend; gasSponsored: boolean },
  options: SolanaRpcOptions = {},
): Promise<ChainPreparedTransfer> {
  // On Solana the tank always pays, as fee payer (the sender needs no SOL for fees).
  if (CHAINS[input.chain].family === 'solana') return prepareSolanaTransfer(input, options);
  return prepareTransfer({ ...input, relayed: input.gasSponsored && (await relaysOn(input.chain)) });
}

/** Whether sponsored spends on `chain` take the relayed path (ADR 0035) rather than a top-up. */
export async function relaysOn(chain: ChainName): Promise<boolean> {
  return CHAINS[chain].family === 'evm' && (await smartAccountStatus(chain)).path === 'sponsored';
}
