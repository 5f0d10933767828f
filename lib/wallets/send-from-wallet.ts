/**
 * Send tokens from the user's service wallet to any address (/wallet/send), in two steps:
 *
 *  1. `previewSend` — checks the request (chain, token, recipient for the chain's family, exact amount
 *     within the balance) and estimates the network fee; hands out the send's id. Costs no PIN attempt.
 *  2. `sendFromWallet` — the same checks again, the PIN (attempt-limited like every PIN check), then, in
 *     one transaction, the funds check, signing and recording (outbound_transfers, purpose wallet_send)
 *     and the wallet_sends row; broadcast after the commit. Like every transfer the service sends, a
 *     crash between recording and broadcasting leaves a row the reconciler sends — never a second one.
 *
 * Exactly once per send id: replaying the confirmation (double click, retry) returns the first transfer.
 * Concurrent sends from one wallet on one chain take turns, and the funds check counts what earlier
 * sends recorded but have not broadcast yet, so two sends cannot both spend the same balance.
 *
 * The network fee is paid by the wallet, from its native coin, and shown before confirming. The gas tank
 * does not cover sends: it pays for charge payments and sweeps, which the platform lives from; covering
 * transfers to arbitrary addresses would let anyone drain it with dust sends.
 *
 * EVM networks only: the Solana wallet receives (Receive, on-ramps), sending from it is not built yet.
 */
import { eq } from 'drizzle-orm';
import type { Hex } from 'viem';
import { verifyPinStepUp } from '@/lib/accounts/step-up';
import { CHAINS, EVM_CHAIN_NAMES, type ChainName } from '@/lib/chains/registry';
import { getDb } from '@/lib/db/client';
import { outboundTransfers, walletSends } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';
import { isIdOf } from '@/lib/ids';
import { formatAmount } from '@/lib/money';
import { submitTransfer } from '@/lib/transactions/broadcast-transfer';
import { recordTransfer } from '@/lib/transactions/record-transfer';
import { accountFromKey } from '@/lib/transactions/account-from-key';
import { openWalletKey } from '@/lib/keyring/envelope';
import { cachedBalance, forgetBalances, isChainConnected } from './cached-balance';
import { checkFunds } from './check-funds';
import { resolveSendRequest } from './resolve-send-request';
import type { SendRequest } from './schemas';
import { userEvmWallet } from './user-evm-wallet';

export interface WalletSendResult {
  sendId: string;
  transferId: string;
  txHash: string;
}

export async function sendFromWallet(input: SendRequest & { userId: string; sendId: string; pin: string }): Promise<WalletSendResult> {
  if (!isIdOf('walletSend', input.sendId))
    throw new AppError('invalid_request', 'This send form is out of date: review the send again.', { param: 'sendId' });
  const wallet = await userEvmWallet(getDb(), input.userId);
  const send = resolveSendRequest(input, wallet.address);
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
  const { prepared } = await checkFunds(getDb(), { ...send, from: wallet.address as Hex });

  const outcome = await getDb().transaction(async (tx) => {
    const recorded = await recordTransfer(tx, {
      prepared,
      signer: accountFromKey(openWalletKey(wallet)),
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
    await submitTransfer(outcome.recorded);
    forgetBalances(send.chain, wallet.address);
    forgetBalances(send.chain, send.toAddress);
  }
  return { sendId: input.sendId, transferId: outcome.transferId, txHash: outcome.txHash };
}

export interface SendOption {
  /** `${chain}:${tokenAddress}`, the form's value. */
  value: string;
  chain: ChainName;
  label: string;
  isTestnet: boolean;
}

/** What the user can send: every registry token of the EVM networks with an RPC, with the wallet's balance when known. */
export async function sendOptions(userId: string): Promise<{ from: string; options: SendOption[] }> {
  const wallet = await userEvmWallet(getDb(), userId);
  const chains = EVM_CHAIN_NAMES.filter(isChainConnected).sort((a, b) => Number(CHAINS[a].isTestnet) - Number(CHAINS[b].isTestnet));
  const options = await Promise.all(
    chains.flatMap((chain) =>
      CHAINS[chain].tokens.map(async (token): Promise<SendOption> => {
        const balance = await cachedBalance(chain, token, wallet.address);
        const held = balance === undefined ? 'balance unavailable' : `${formatAmount(balance, token.decimals)} held`;
        return {
          value: `${chain}:${token.address}`,
          chain,
          label: `${token.symbol} on ${CHAINS[chain].displayName} (${held})`,
          isTestnet: CHAINS[chain].isTestnet,
        };
      }),
    ),
  );
  return { from: wallet.address, options };
}
