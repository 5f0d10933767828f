/**
 * A relayed EVM sweep world (ADR 0035) for lib/payments/sweep-relayed, sweep-batched and sweep-pull tests: a
 * private database, a private POLYGON node (anvil, prague, the EntryPoint v0.8 and Simple7702Account planted) as
 * the app's POLYGON RPC, SMART_ACCOUNT_CHAINS=POLYGON, a funded payer and gas tank, a verified merchant, and
 * charges paid in USDC at their deposit addresses, ready to sweep. With `{ chain: 'BSC', relayer: false }`, the
 * same world of direct sweeps (no SMART_ACCOUNT_CHAINS, the default stuck delay) for sweep-charges.test.ts, which
 * pays its own charges (the USDC helpers here are POLYGON's).
 */
import { and, eq, inArray } from 'drizzle-orm';
import {
  createPublicClient,
  createWalletClient,
  encodeAbiParameters,
  erc20Abi,
  http,
  keccak256,
  parseUnits,
  type Address,
  type Hex,
  type PublicClient,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { CHAINS } from '@/lib/chains/registry';
import { getDb } from '@/lib/db/client';
import { outboundTransfers, wallets } from '@/lib/db/schema';
import { resetEnvCache } from '@/lib/env';
import { reconcileDueTransfers } from '@/lib/jobs/transfer-outcome-hooks';
import { pollChain } from '@/lib/payments/poll-chain';
import { gasTankAccountFromSeed } from '@/lib/transactions/gas-tank-key';
import { fundLocalWallet, provisionLocalChain, startLocalChain, type LocalChainNode } from '@/scripts/stack/local-chain';
import { createTestCharge, newMerchant, type TestMerchant } from '@/test/fixtures';
import { switchToPrivateDatabase } from '@/test/private-database';
import { TEST_SECRETS } from '@/test/test-secrets';

export const CHAIN = 'POLYGON' as const;
export const USDC = CHAINS.POLYGON.tokens.find((t) => t.symbol === 'USDC')!;
export const gasTank = gasTankAccountFromSeed(TEST_SECRETS.DEPOSIT_HD_SEED).address;
export const usdc = (amount: string) => parseUnits(amount, USDC.decimals);

/** Funded on the world's chain: it pays the charges. */
export const payer = privateKeyToAccount(generatePrivateKey());
let node: LocalChainNode;
let client: PublicClient;
let merchant: TestMerchant;
let setKeys: string[] = [];

/** Sets (or, for `undefined`, deletes) environment variables and drops the cached env. */
export function setEnv(values: Record<string, string | undefined>): void {
  for (const [key, value] of Object.entries(values)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  resetEnvCache();
}

/**
 * beforeAll: the world, with `env` set on top of the relayer's (each unset again by stopRelayedSweepWorld); `chain`
 * (POLYGON) the node's, `relayer: false` without the relayer's env.
 */
export async function startRelayedSweepWorld(
  env: Record<string, string> = {},
  options: { chain?: 'POLYGON' | 'BSC'; relayer?: boolean } = {},
): Promise<{ node: LocalChainNode; client: PublicClient; merchant: TestMerchant }> {
  const { chain = CHAIN, relayer = true } = options;
  await switchToPrivateDatabase();
  node = await startLocalChain({ chain });
  await provisionLocalChain({ chain, url: node.url });
  setEnv({ [`RPC_URL_${chain}`]: node.url, LOCAL_CHAINS: 'BSC,POLYGON,POLYGON_AMOY' });
  if (relayer) setEnv({ TRANSFER_STUCK_AFTER_SECONDS: '1', SMART_ACCOUNT_CHAINS: CHAIN });
  setEnv(env);
  setKeys = [...(relayer ? ['SMART_ACCOUNT_CHAINS', 'TRANSFER_STUCK_AFTER_SECONDS'] : []), ...Object.keys(env)];
  client = createPublicClient({ transport: http(node.url) });
  await fundLocalWallet({ chain, url: node.url, address: payer.address });
  await fundLocalWallet({ chain, url: node.url, address: gasTank });
  merchant = await newMerchant({ verified: true });
  await pollChain(chain);
  return { node, client, merchant };
}

/** afterAll: the relayer's env and the file's own unset, the node stopped. */
export async function stopRelayedSweepWorld(): Promise<void> {
  setEnv(Object.fromEntries(setKeys.map((key) => [key, undefined])));
  await node.stop();
}

export const rpc = (method: string, params: unknown[]) => client.request({ method: method as never, params: params as never });

export const usdcBalance = (address: Hex) =>
  client.readContract({ address: USDC.address as Hex, abi: erc20Abi, functionName: 'balanceOf', args: [address] });

export interface Paid {
  chargeId: string;
  deposit: Hex;
  amount: bigint;
}

/**
 * Charges of `of` paid in full at their deposit addresses (leased from the merchant's pool when it holds any,
 * ADR 0038), all confirmed by one poll.
 */
export async function paidCharges(amounts: string[], of: TestMerchant = merchant): Promise<Paid[]> {
  const wallet = createWalletClient({ account: payer, transport: http(node.url) });
  const out: Paid[] = [];
  for (const amount of amounts) {
    const { chargeId, deposit } = await createTestCharge({
      apiKey: of.liveKey!,
      body: { chargeData: { symbol: 'USDC', chain: CHAIN, tokenAddress: USDC.address, amount } },
    });
    const hash = await wallet.writeContract({
      address: USDC.address as Hex,
      abi: erc20Abi,
      functionName: 'transfer',
      args: [deposit.address as Hex, usdc(amount)],
      chain: null,
    });
    await client.waitForTransactionReceipt({ hash });
    out.push({ chargeId, deposit: deposit.address as Hex, amount: usdc(amount) });
  }
  await pollChain(CHAIN);
  return out;
}

/** The merchant's EVM wallet: where its sweeps go. */
export async function merchantWallet(merchantId: string = merchant.id): Promise<Hex> {
  const [wallet] = await getDb()
    .select()
    .from(wallets)
    .where(and(eq(wallets.merchantId, merchantId), eq(wallets.family, 'evm')));
  return wallet!.address as Hex;
}

export const sweepsOf = (chargeIds: string[]) =>
  getDb()
    .select()
    .from(outboundTransfers)
    .where(and(inArray(outboundTransfers.chargeId, chargeIds), eq(outboundTransfers.purpose, 'sweep')))
    .orderBy(outboundTransfers.id);

/**
 * Reconciler passes until every sweep of `chargeIds` is confirmed or failed; `mine`: a block after each pass (a
 * transaction queued behind a nonce the last block filled goes in the next).
 */
export async function reconcileUntilSettled(chargeIds: string[], options: { mine?: boolean } = {}) {
  for (let i = 0; i < 20; i++) {
    await reconcileDueTransfers({ ignoreSchedule: true });
    if (options.mine) await rpc('evm_mine', []);
    const rows = await sweepsOf(chargeIds);
    if (rows.every((r) => r.status === 'confirmed' || r.status === 'failed')) return rows;
  }
  const rows = await sweepsOf(chargeIds);
  throw new Error(`sweeps did not settle: ${JSON.stringify(rows.map((r) => [r.status, r.nonce, r.error, r.broadcastFailures]))}`);
}

/** The storage slot of `holder`'s balance in the token's `mapping(address => uint256)`, found by probing. */
export async function balanceSlot(holder: Hex): Promise<Hex> {
  const balance = await usdcBalance(holder);
  for (let slot = 0n; slot < 20n; slot++) {
    const key = keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [holder, slot]));
    const value = await client.getStorageAt({ address: USDC.address as Address, slot: key });
    if (value && BigInt(value) === balance) return key;
  }
  throw new Error('balance slot not found');
}
