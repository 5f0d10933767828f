import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createPublicClient, createWalletClient, erc20Abi, http, parseEther, parseUnits, type Hex } from 'viem';
import type { ChainName } from '@/lib/chains/registry';
import { fundLocalWallet, localDemoPayerAccount } from '@/scripts/stack/local-chain';
import { E2E_DATA_DIR } from '../playwright.config';

export const POLYGON_USDC = '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359';

/** The e2e stack's local POLYGON node (from its runtime file). */
export function polygonRpc(): string {
  const info = JSON.parse(readFileSync(path.join(E2E_DATA_DIR, 'runtime.json'), 'utf8')) as { localRpcUrls: Record<string, string> };
  return info.localRpcUrls.POLYGON!;
}

export async function fundOnPolygon(address: string): Promise<void> {
  // On the record (a transaction the wallet indexer sees), like any inflow: a service wallet's books count it.
  await fundLocalWallet({ chain: 'POLYGON', url: polygonRpc(), address: address as Hex, onTheRecord: true });
}

/**
 * Sends from anvil's dev account #1, which other test workers and the stack's test-charge helper
 * (/api/test_helpers/…/pay) also send from: two senders can take the same nonce, and the node refuses the later
 * one ("nonce too low", "replacement transaction underpriced"). A refused transaction was never accepted, so
 * sending it again with a fresh nonce cannot pay twice.
 */
async function sendFromDemoPayer(send: () => Promise<Hex>): Promise<Hex> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await send();
    } catch (error) {
      const refused = /nonce too low|nonce provided for the transaction is lower|replacement transaction underpriced/i;
      if (attempt >= 5 || !refused.test(String(error))) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
    }
  }
}

/** Sends USDC from an outside account (anvil's dev account #1), as a player's own wallet would. */
export async function sendUsdcFromOutside(to: string, amount: string): Promise<void> {
  const transport = http(polygonRpc());
  const wallet = createWalletClient({ account: localDemoPayerAccount, transport });
  const hash = await sendFromDemoPayer(() =>
    wallet.writeContract({
      address: POLYGON_USDC,
      abi: erc20Abi,
      functionName: 'transfer',
      args: [to as Hex, parseUnits(amount, 6)],
      chain: null,
    }),
  );
  await createPublicClient({ transport }).waitForTransactionReceipt({ hash });
}

/** The e2e stack's local node of any EVM chain (test networks included). */
export function localRpc(chain: ChainName): string {
  const info = JSON.parse(readFileSync(path.join(E2E_DATA_DIR, 'runtime.json'), 'utf8')) as {
    localRpcUrls: Partial<Record<ChainName, string>>;
  };
  const url = info.localRpcUrls[chain];
  if (!url) throw new Error(`the e2e stack runs no local ${chain} node`);
  return url;
}

/** Sends the chain's native coin from an outside account (anvil's dev account #1): how a test charge is paid. */
export async function sendNativeFromOutside(chain: ChainName, to: string, amount: string): Promise<Hex> {
  const transport = http(localRpc(chain));
  const wallet = createWalletClient({ account: localDemoPayerAccount, transport });
  const hash = await sendFromDemoPayer(() => wallet.sendTransaction({ to: to as Hex, value: parseEther(amount), chain: null }));
  await createPublicClient({ transport }).waitForTransactionReceipt({ hash });
  return hash;
}
