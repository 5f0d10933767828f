/**
 * The funds check of a send, for the preview and again for the confirmation: the wallet pays the network fee
 * from its native coin (`gasSponsored: false`: the gas tank does not cover sends, see send-from-wallet.ts),
 * and what its earlier transfers on the chain have in flight is already spent.
 */
import type { Hex } from 'viem';
import { CHAINS, nativeToken, type ChainName, type TokenInfo } from '@/lib/chains/registry';
import type { DbOrTx } from '@/lib/db/client';
import { AppError } from '@/lib/errors';
import { formatAmount } from '@/lib/money';
import { inFlightOf } from '@/lib/transactions/lock-sender';
import { prepareTransfer, type PreparedTransfer } from '@/lib/transactions/prepare-transfer';
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
  send: ResolvedSend & { from: Hex },
): Promise<{ prepared: PreparedTransfer; available: bigint }> {
  const info = CHAINS[send.chain];
  const native = nativeToken(info);
  const prepared = await prepareTransfer({
    chain: send.chain,
    from: send.from,
    spend: { token: send.token, amount: send.amount, recipient: send.toAddress },
    gasSponsored: false,
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
  return { prepared, available };
}
