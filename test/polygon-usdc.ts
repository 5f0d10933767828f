/**
 * USDC on the suite's shared POLYGON node (the app's POLYGON RPC, started by the global setup): the token, a client
 * of the node, balances, a payment from outside, and a charge waited for until the watcher counts it succeeded.
 */
import { eq } from 'drizzle-orm';
import { createPublicClient, createWalletClient, erc20Abi, http, parseUnits, type Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { CHAINS } from '@/lib/chains/registry';
import { getDb } from '@/lib/db/client';
import { charges } from '@/lib/db/schema';
import { rpcUrl } from '@/lib/env';
import { reconcileDueTransfers } from '@/lib/jobs/transfer-outcome-hooks';
import { pollChain } from '@/lib/payments/poll-chain';
import { fundLocalWallet } from '@/scripts/stack/local-chain';

export const USDC = CHAINS.POLYGON.tokens.find((t) => t.symbol === 'USDC')!;

export const client = () => createPublicClient({ transport: http(rpcUrl('POLYGON')!) });

export const usdcOf = (address: string) =>
  client().readContract({ address: USDC.address as Address, abi: erc20Abi, functionName: 'balanceOf', args: [address as Address] });

/** A fresh outside wallet sends `amount` USDC to `to`; returns the sender and the transaction hash. */
export async function sendUsdcFromOutside(to: Address, amount: string): Promise<{ sender: Address; hash: `0x${string}` }> {
  const account = privateKeyToAccount(generatePrivateKey());
  await fundLocalWallet({ chain: 'POLYGON', url: rpcUrl('POLYGON')!, address: account.address });
  const hash = await createWalletClient({ account, transport: http(rpcUrl('POLYGON')!) }).writeContract({
    address: USDC.address as Address,
    abi: erc20Abi,
    functionName: 'transfer',
    args: [to, parseUnits(amount, 6)],
    chain: null,
  });
  await client().waitForTransactionReceipt({ hash });
  return { sender: account.address, hash };
}

/**
 * Polls the POLYGON watcher (after the reconciler, with `reconcile`) until `chargeId` succeeded, `rounds` times at
 * most, 100 ms apart; returns its status then (the shared node may be polled by other files too).
 */
export async function settle(chargeId: string, options: { rounds?: number; reconcile?: boolean } = {}): Promise<string> {
  const { rounds = 20, reconcile = false } = options;
  for (let i = 0; i < rounds; i++) {
    if (reconcile) await reconcileDueTransfers({ ignoreSchedule: true });
    await pollChain('POLYGON');
    const [row] = await getDb().select().from(charges).where(eq(charges.id, chargeId));
    if (row!.status === 'succeeded') return row!.status;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const [row] = await getDb().select().from(charges).where(eq(charges.id, chargeId));
  return row!.status;
}

/** `settle` for 30 rounds, throwing unless the charge succeeded. */
export async function settled(chargeId: string): Promise<void> {
  if ((await settle(chargeId, { rounds: 30 })) !== 'succeeded') throw new Error(`charge ${chargeId} did not succeed`);
}
