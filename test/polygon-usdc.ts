/**
 * USDC on the suite's shared POLYGON node (the app's POLYGON RPC, started by the global setup): the token, a client
 * of the node, balances, and a charge waited for until the watcher counts it succeeded.
 */
import { eq } from 'drizzle-orm';
import { createPublicClient, erc20Abi, http, type Address } from 'viem';
import { CHAINS } from '@/lib/chains/registry';
import { getDb } from '@/lib/db/client';
import { charges } from '@/lib/db/schema';
import { rpcUrl } from '@/lib/env';
import { pollChain } from '@/lib/payments/poll-chain';

export const USDC = CHAINS.POLYGON.tokens.find((t) => t.symbol === 'USDC')!;

export const client = () => createPublicClient({ transport: http(rpcUrl('POLYGON')!) });

export const usdcOf = (address: string) =>
  client().readContract({ address: USDC.address as Address, abi: erc20Abi, functionName: 'balanceOf', args: [address as Address] });

/** Polls the POLYGON watcher until `chargeId` succeeded (3 s at most). */
export async function settled(chargeId: string): Promise<void> {
  for (let i = 0; i < 30; i++) {
    await pollChain('POLYGON');
    const [row] = await getDb().select().from(charges).where(eq(charges.id, chargeId));
    if (row!.status === 'succeeded') return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`charge ${chargeId} did not succeed`);
}
