/**
 * Sends purchased tokens from Sandpiper Pay's own account (account.ts) to the buyer's wallet on the
 * session's chain, and waits for the receipt. The provider knows chains only through their RPC URLs.
 */
import { createPublicClient, createWalletClient, defineChain, erc20Abi, http, type Address, type Hex } from 'viem';
import { getChain, nativeToken, tokenHasSymbol, type ChainName } from '@/lib/chains/registry';
import { rpcUrl } from '@/lib/env';
import { log } from '@/lib/log';
import { sandboxProviderAccount } from './account';

const RECEIPT_TIMEOUT_MS = 60_000;

export type DeliveryResult =
  | { ok: true; txHash: Hex }
  | { ok: false; reason: 'network_unavailable' | 'token_not_deliverable' | 'insufficient_liquidity' | 'delivery_failed' };

/**
 * One transfer at a time per chain from this process: parallel sends would pick the same nonce.
 * (Only the web process delivers: the payment screen's requests schedule it.)
 */
const chainQueues = new Map<ChainName, Promise<unknown>>();

function serialised<T>(chain: ChainName, task: () => Promise<T>): Promise<T> {
  const previous = chainQueues.get(chain) ?? Promise.resolve();
  const next = previous.catch(() => {}).then(task);
  chainQueues.set(chain, next);
  return next;
}

export async function deliverTokens(input: {
  chain: ChainName;
  tokenSymbol: string;
  walletAddress: string;
  baseUnits: bigint;
}): Promise<DeliveryResult> {
  const info = getChain(input.chain);
  const url = rpcUrl(input.chain);
  if (info.family !== 'evm' || info.evmChainId === undefined || !url) return { ok: false, reason: 'network_unavailable' };
  const token = info.tokens.find((t) => tokenHasSymbol(t, input.tokenSymbol));
  if (!token) return { ok: false, reason: 'token_not_deliverable' };

  const chain = defineChain({
    id: info.evmChainId,
    name: info.displayName,
    nativeCurrency: { name: nativeToken(info).name, symbol: nativeToken(info).symbol, decimals: 18 },
    rpcUrls: { default: { http: [url] } },
  });
  const transport = http(url, { timeout: 15_000 });
  const publicClient = createPublicClient({ chain, transport });
  const wallet = createWalletClient({ chain, transport, account: sandboxProviderAccount });
  const to = input.walletAddress as Address;

  return serialised(input.chain, async (): Promise<DeliveryResult> => {
    try {
      const balance = token.isNative
        ? await publicClient.getBalance({ address: sandboxProviderAccount.address })
        : await publicClient.readContract({
            address: token.address as Address,
            abi: erc20Abi,
            functionName: 'balanceOf',
            args: [sandboxProviderAccount.address],
          });
      if (balance < input.baseUnits) {
        log.warn('sandbox provider: treasury short of tokens', {
          chain: input.chain,
          token: token.symbol,
          balance,
          needed: input.baseUnits,
        });
        return { ok: false, reason: 'insufficient_liquidity' };
      }
      const hash = token.isNative
        ? await wallet.sendTransaction({ to, value: input.baseUnits })
        : await wallet.writeContract({
            address: token.address as Address,
            abi: erc20Abi,
            functionName: 'transfer',
            args: [to, input.baseUnits],
          });
      const receipt = await publicClient.waitForTransactionReceipt({ hash, timeout: RECEIPT_TIMEOUT_MS });
      return receipt.status === 'success' ? { ok: true, txHash: hash } : { ok: false, reason: 'delivery_failed' };
    } catch (error) {
      log.warn('sandbox provider: delivery failed', { chain: input.chain, token: token.symbol, error });
      return { ok: false, reason: 'delivery_failed' };
    }
  });
}
