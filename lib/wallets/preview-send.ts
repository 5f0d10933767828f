/**
 * Step 1 of a send from the user's wallet (/wallet/send): checks the request (chain, token, recipient for the
 * chain's family, exact amount within the balance) and estimates the network fee, paid by the wallet from its
 * native coin and shown before confirming; hands out the send's id, which makes step 2 (`sendFromWallet`)
 * happen once. Writes nothing and costs no PIN attempt.
 */
import { CHAINS, nativeToken, type ChainName } from '@/lib/chains/registry';
import type { SolanaRpcOptions } from '@/lib/chains/solana-rpc';
import { getDb } from '@/lib/db/client';
import { newId } from '@/lib/ids';
import { formatAmount } from '@/lib/money';
import { approximateUsd } from '@/lib/pricing/approximate-usd';
import { checkFunds } from './check-funds';
import { resolveSendRequest } from './resolve-send-request';
import type { SendRequest } from './schemas';
import { userWallets } from './user-wallets';

export function newSendId(): string {
  return newId('walletSend');
}

export interface SendPreview {
  sendId: string;
  chain: ChainName;
  chainDisplayName: string;
  tokenAddress: string;
  symbol: string;
  /** Exact decimal text. */
  amount: string;
  toAddress: string;
  /** What the wallet can send of the token now. */
  available: string;
  fee: {
    /** The most the network fee can be (gas limit × max fee per gas; on Solana the fee and any token-account rent), in the native coin. */
    maxAmount: string;
    symbol: string;
    usd?: string;
    /** Who pays it: the wallet, from its native coin (EVM), or the service's gas tank as fee payer (Solana). */
    paidBy: 'wallet' | 'service';
  };
}

export async function previewSend(input: SendRequest & { userId: string }, options: SolanaRpcOptions = {}): Promise<SendPreview> {
  const send = resolveSendRequest(input, await userWallets(getDb(), input.userId));
  const { available, fee } = await checkFunds(getDb(), send, options);
  const maxGasCost = fee.max;
  const native = nativeToken(CHAINS[send.chain]);
  const usd = CHAINS[send.chain].isTestnet ? undefined : await approximateUsd(native, maxGasCost).catch(() => undefined);
  return {
    sendId: newSendId(),
    chain: send.chain,
    chainDisplayName: CHAINS[send.chain].displayName,
    tokenAddress: send.token.address,
    symbol: send.token.symbol,
    amount: formatAmount(send.amount, send.token.decimals),
    toAddress: send.toAddress,
    available: formatAmount(available, send.token.decimals),
    fee: {
      maxAmount: formatAmount(maxGasCost, native.decimals),
      symbol: native.symbol,
      paidBy: fee.paidBy,
      ...(usd !== undefined ? { usd } : {}),
    },
  };
}
