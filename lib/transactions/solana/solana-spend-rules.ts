/**
 * What a Solana spend must satisfy when it is signed, under the sender's lock: the sender holds the amount
 * beyond what its earlier transfers have on their way (and a system account ends at 0 or rent-exempt), and
 * the gas tank, as fee payer, can pay beyond its own fee records on their way. recordSolanaTransfer checks
 * them when a spend is recorded, resignSolanaTransfer again when an expired one is signed with a new
 * blockhash (./resign-solana-transfer.ts) — the spend being re-signed is then left out of "on their way".
 */
import type { Address } from 'viem';
import { CHAINS, SOLANA_NATIVE_MINT } from '@/lib/chains/registry';
import type { DbOrTx } from '@/lib/db/client';
import { AppError } from '@/lib/errors';
import { log } from '@/lib/log';
import { formatAmount } from '@/lib/money';
import { inFlightOf, lockSender } from '@/lib/transactions/lock-sender';
import type { PreparedSolanaTransfer } from './prepare-solana-transfer';

/** The fee record's tx_hash is its transaction's signature with this suffix ((chain, tx_hash) is unique). */
export const SOLANA_FEE_RECORD_SUFFIX = '-fee';

/** What one spend already has on its way (its transfer and its fee record), when it is the one being signed again. */
interface OwnInFlight {
  amount: bigint;
  fee: bigint;
}

/** The sender's check; call under lockSender(prepared.from). */
export async function assertSolanaSenderHolds(
  tx: DbOrTx,
  prepared: PreparedSolanaTransfer,
  options: { label?: string; own?: OwnInFlight } = {},
): Promise<void> {
  const chain = CHAINS[prepared.chain];
  const { token, amount } = prepared.spend;
  // What earlier spends of this wallet have signed but not landed is not the wallet's to spend again.
  const flight = await inFlightOf(tx, prepared.chain, prepared.from as Address);
  const committed = (flight.valueOut.get(token.address.toLowerCase()) ?? 0n) - (options.own?.amount ?? 0n);
  const held = (token.isNative ? prepared.sender.lamports : (prepared.sender.tokenBalance ?? 0n)) - committed;
  const label = options.label ?? 'The wallet';
  const fmt = (units: bigint) => `${formatAmount(units > 0n ? units : 0n, token.decimals)} ${token.symbol}`;
  if (held < amount) {
    throw new AppError(
      'insufficient_balance',
      `${label} holds ${fmt(held)} available on ${chain.displayName}${committed > 0n ? ` (${fmt(committed)} of it is already committed to transfers on their way)` : ''}; this needs ${fmt(amount)}.`,
      { param: 'amount' },
    );
  }
  // A system account ends at 0 or rent-exempt: a remainder in between would fail on chain.
  const rest = held - amount;
  if (token.isNative && rest > 0n && rest < prepared.rentExempt) {
    throw new AppError(
      'insufficient_balance',
      `${label} must keep at least ${fmt(prepared.rentExempt)} on ${chain.displayName} (Solana's minimum for an account) or send everything (${fmt(held)}).`,
      { param: 'amount' },
    );
  }
}

/** The tank's check, after the sender's (lock order as on EVM: the sender, then the tank). Takes the tank's lock. */
export async function assertSolanaTankCanPay(tx: DbOrTx, prepared: PreparedSolanaTransfer, own?: OwnInFlight): Promise<void> {
  await lockSender(tx, prepared.chain, prepared.tank.address as Address);
  // The tank's in-flight fee records are spent already.
  const tankFlight = await inFlightOf(tx, prepared.chain, prepared.tank.address as Address);
  const committed = (tankFlight.valueOut.get(SOLANA_NATIVE_MINT.toLowerCase()) ?? 0n) - (own?.fee ?? 0n);
  const tankAvailable = prepared.tank.lamports - committed;
  if (tankAvailable < prepared.feePayerCost + prepared.rentExempt) {
    log.error('gas tank cannot pay a Solana fee; fund it (npm run admin -- gas-tank status)', {
      chain: prepared.chain,
      tank: prepared.tank.address,
      available: tankAvailable.toString(),
      needed: (prepared.feePayerCost + prepared.rentExempt).toString(),
    });
    throw new AppError(
      'gas_tank_empty',
      `Network fees on ${CHAINS[prepared.chain].displayName} cannot be covered right now (the fee wallet needs SOL). Try again later.`,
    );
  }
}
