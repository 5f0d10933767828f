/**
 * Send tokens from the user's service wallet to any address (/wallet/send), in two steps:
 *
 *  1. `previewSend` (preview-send.ts) — checks the request (chain, token, recipient for the chain's
 *     family, exact amount within the balance) and estimates the network fee; hands out the send's id.
 *     Costs no PIN attempt.
 *  2. `sendFromWallet`, here — the same checks again (resolve-send-request.ts, check-funds.ts), the PIN
 *     (attempt-limited like every PIN check), then, in one transaction, the funds check, signing and
 *     recording (outbound_transfers, purpose wallet_send) and the wallet_sends row; broadcast after the
 *     commit. Like every transfer the service sends, a crash between recording and broadcasting leaves
 *     a row the reconciler sends — never a second one.
 *
 * Exactly once per send id: replaying the confirmation (double click, retry) returns the first transfer.
 * Concurrent sends from one wallet on one chain take turns, and the funds check counts what earlier
 * sends recorded but have not broadcast yet, so two sends cannot both spend the same balance.
 *
 * On EVM networks the network fee is paid by the wallet, from its native coin, and shown before confirming:
 * the gas tank never tops a wallet up for a send to an arbitrary address. Where smart accounts are on
 * (SMART_ACCOUNT_CHAINS, ADR 0035) the send is relayed instead: the tank sends the wallet's own signed
 * smart-account call and pays its gas, charged to the user's daily cap of sponsored gas
 * (GAS_TANK_DAILY_SPONSORED_GAS_PER_USER), so dust sends cannot drain it.
 *
 * On Solana the gas tank is the fee payer of every transaction the service signs, sends included, so the
 * Solana wallet needs no SOL (issue 29). The drain is bounded the same way: each send's fee record counts
 * toward the user's daily cap, and a send costs the tank 10 000 lamports plus, at most, one token account's rent.
 */
import { eq } from 'drizzle-orm';
import { verifyPinStepUp } from '@/lib/accounts/step-up';
import type { SolanaRpcOptions } from '@/lib/chains/solana-rpc';
import { CHAINS } from '@/lib/chains/registry';
import { getDb } from '@/lib/db/client';
import { outboundTransfers, walletSends } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';
import { isIdOf } from '@/lib/ids';
import { submitTransfer } from '@/lib/transactions/broadcast-transfer';
import { isSolanaPrepared } from '@/lib/transactions/prepare-chain-transfer';
import { recordChainTransfer, walletSigner } from '@/lib/transactions/record-chain-transfer';
import { forgetBalances } from './cached-balance';
import { checkFunds } from './check-funds';
import { resolveSendRequest } from './resolve-send-request';
import type { SendRequest } from './schemas';
import { userWallet } from './user-wallet';
import { userWallets } from './user-wallets';

export interface WalletSendResult {
  sendId: string;
  transferId: string;
  txHash: string;
}

export async function sendFromWallet(
  input: SendRequest & { userId: string; sendId: string; pin: string },
  options: SolanaRpcOptions = {},
): Promise<WalletSendResult> {
  if (!isIdOf('walletSend', input.sendId))
    throw new AppError('invalid_request', 'This send form is out of date: review the send again.', { param: 'sendId' });
  const send = resolveSendRequest(input, await userWallets(getDb(), input.userId));
  const wallet = await userWallet(getDb(), input.userId, CHAINS[send.chain].family);
  await verifyPinStepUp({ userId: input.userId, pin: input.pin, attempt: { action: 'wallet_send' } });

  // A replay of this send (double click, retry) returns the first transfer, whatever the balance is now.
  const [existing] = await getDb()
    .select({ userId: walletSends.userId, transferId: walletSends.transferId, txHash: outboundTransfers.txHash })
    .from(walletSends)
    .innerJoin(outboundTransfers, eq(outboundTransfers.id, walletSends.transferId))
    .where(eq(walletSends.id, input.sendId));
  if (existing) {
    if (existing.userId !== input.userId) throw new AppError('not_found', 'No such send.');
    return { sendId: input.sendId, transferId: existing.transferId, txHash: existing.txHash };
  }
  const { prepared } = await checkFunds(getDb(), send, options);

  const outcome = await getDb().transaction(async (tx) => {
    const recorded = await recordChainTransfer(tx, {
      prepared,
      signer: () => walletSigner(wallet),
      // The service pays the fee only as Solana's fee payer or as the relayer (ADR 0035), never by a top-up.
      solanaFeeSponsor: { userId: input.userId },
      ...(!isSolanaPrepared(prepared) && prepared.relay ? { gasSponsor: { userId: input.userId } } : {}),
      purpose: 'wallet_send',
      authorization: { authority: { kind: 'payer_pin', userId: input.userId }, destination: { class: 'any_address' } },
      idempotency: { scope: `wallet_send:${input.userId}`, key: input.sendId },
      senderLabel: 'Your wallet',
    });
    if (!recorded.replayed)
      await tx.insert(walletSends).values({ id: input.sendId, userId: input.userId, transferId: recorded.transfer.id });
    return { recorded, transferId: recorded.transfer.id, txHash: recorded.transfer.txHash, isNew: !recorded.replayed };
  });

  if (outcome.isNew) {
    await submitTransfer(outcome.recorded, options);
    forgetBalances(send.chain, wallet.address);
    forgetBalances(send.chain, send.toAddress);
  }
  return { sendId: input.sendId, transferId: outcome.transferId, txHash: outcome.txHash };
}
