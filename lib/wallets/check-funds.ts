/**
 * The funds check of a send, for the preview and again for the confirmation: on EVM networks the wallet pays
 * the network fee from its native coin (`gasSponsored: false`: the gas tank tops up no EVM send, see
 * send-from-wallet.ts), except where smart accounts are on (ADR 0035): there the send is relayed and the gas
 * tank pays the fee, so only the value is the wallet's (a native send too, when the wallet could not pay its
 * fee: it can send its whole balance). On Solana the gas tank pays it as fee payer. What its earlier
 * transfers on the chain have in flight is already spent.
 */
import type { Address } from 'viem';
import { CHAINS, nativeToken, type ChainName, type TokenInfo } from '@/lib/chains/registry';
import type { SolanaRpcOptions } from '@/lib/chains/solana-rpc';
import type { DbOrTx } from '@/lib/db/client';
import { AppError } from '@/lib/errors';
import { formatAmount } from '@/lib/money';
import { inFlightOf } from '@/lib/transactions/lock-sender';
import { relaysOn, type ChainPreparedTransfer } from '@/lib/transactions/prepare-chain-transfer';
import { prepareTransfer } from '@/lib/transactions/prepare-transfer';
import { prepareSolanaTransfer } from '@/lib/transactions/solana/prepare-solana-transfer';
import type { ResolvedSend } from './resolve-send-request';

function unavailable(chain: ChainName): AppError {
  return new AppError('chain_unavailable', `${CHAINS[chain].displayName} is not reachable right now. Try again shortly.`);
}

/**
 * Whether the wallet can send `amount` and pay the fee: its latest balances minus what its transfers on
 * the chain have in flight (recorded or broadcast, not yet in a block). The engine checks again under the
 * wallet's lock when it records the send. Returns the prepared transfer and what the wallet could send.
 */
export async function checkFunds(
  db: DbOrTx,
  send: ResolvedSend,
  options: SolanaRpcOptions = {},
): Promise<{ prepared: ChainPreparedTransfer; available: bigint; fee: { max: bigint; paidBy: 'wallet' | 'service' } }> {
  const info = CHAINS[send.chain];
  if (info.family === 'solana') return checkSolanaFunds(db, send, options);
  const native = nativeToken(info);
  const prepared = await prepareTransfer({
    chain: send.chain,
    from: send.from,
    spend: { token: send.token, amount: send.amount, recipient: send.toAddress },
    gasSponsored: false,
    relayed: await relaysOn(send.chain),
  }).catch(() => {
    throw unavailable(send.chain);
  });
  const flight = await inFlightOf(db, send.chain, prepared.from, prepared.sender);
  const maxGasCost = prepared.gas * prepared.maxFeePerGas;
  const nativeLeft = prepared.sender.nativeBalance - flight.nativeOut;
  const available = send.token.isNative
    ? nativeLeft
    : (prepared.sender.tokenBalance ?? 0n) - (flight.valueOut.get(send.token.address.toLowerCase()) ?? 0n);
  const amount = (units: bigint, token: TokenInfo) => `${formatAmount(units > 0n ? units : 0n, token.decimals)} ${token.symbol}`;
  if (available < send.amount) {
    throw new AppError(
      'insufficient_balance',
      `Your wallet holds ${amount(available, send.token)} on ${info.displayName}: you cannot send more than that.`,
      { param: 'amount' },
    );
  }
  if (prepared.relay) return { prepared, available, fee: { max: maxGasCost, paidBy: 'service' } };
  const nativeNeeded = maxGasCost + (send.token.isNative ? send.amount : 0n);
  if (nativeLeft < nativeNeeded) {
    throw new AppError(
      'insufficient_balance',
      send.token.isNative
        ? `With the network fee (up to ${amount(maxGasCost, native)}) this is more than your wallet holds: send at most ${amount(nativeLeft - maxGasCost, native)}.`
        : `The network fee (up to ${amount(maxGasCost, native)}) is paid from your ${native.symbol}, and your wallet holds ${amount(nativeLeft, native)} on ${info.displayName}. Add ${native.symbol} first.`,
      { param: 'amount' },
    );
  }
  return { prepared, available, fee: { max: maxGasCost, paidBy: 'wallet' } };
}

/** Solana: the value only (the tank pays the fee); SOL must leave the wallet empty or rent-exempt, as the engine checks again. */
async function checkSolanaFunds(db: DbOrTx, send: ResolvedSend, options: SolanaRpcOptions): ReturnType<typeof checkFunds> {
  const prepared = await prepareSolanaTransfer(
    { chain: send.chain, from: send.from, spend: { token: send.token, amount: send.amount, recipient: send.toAddress } },
    options,
  );
  const flight = await inFlightOf(db, send.chain, send.from as Address);
  const held = send.token.isNative ? prepared.sender.lamports : (prepared.sender.tokenBalance ?? 0n);
  const available = held - (flight.valueOut.get(send.token.address.toLowerCase()) ?? 0n);
  const fmt = (units: bigint) => `${formatAmount(units > 0n ? units : 0n, send.token.decimals)} ${send.token.symbol}`;
  if (available < send.amount) {
    throw new AppError(
      'insufficient_balance',
      `Your wallet holds ${fmt(available)} on ${CHAINS[send.chain].displayName}: you cannot send more than that.`,
      { param: 'amount' },
    );
  }
  const rest = available - send.amount;
  if (send.token.isNative && rest > 0n && rest < prepared.rentExempt) {
    throw new AppError(
      'insufficient_balance',
      `Your wallet must keep at least ${fmt(prepared.rentExempt)} (Solana's minimum for an account) or send everything (${fmt(available)}).`,
      { param: 'amount' },
    );
  }
  return { prepared, available, fee: { max: prepared.feePayerCost, paidBy: 'service' } };
}
