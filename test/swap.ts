/**
 * Test helpers for the swap on-ramp's integration tests: a private BSC node with the demo pool (each
 * test file moves its price) and a private database, PZP charges, a funded consumer, and driving the
 * watcher and the sweep.
 */
import { eq } from 'drizzle-orm';
import { createPublicClient, createWalletClient, erc20Abi, http, maxUint256, type Address, type Hex, type PublicClient } from 'viem';
import { expect } from 'vitest';
import { setPin } from '@/lib/accounts/set-pin';
import { createUser } from '@/lib/accounts/create-user';
import { CHAINS } from '@/lib/chains/registry';
import { getDb } from '@/lib/db/client';
import { charges } from '@/lib/db/schema';
import { resetEnvCache } from '@/lib/env';
import {
  fundLocalWallet,
  localDemoPayerAccount,
  provisionLocalChain,
  startLocalChain,
  type LocalChainNode,
} from '@/scripts/stack/local-chain';
import { gasTankAccountFromSeed } from '@/lib/transactions/gas-tank-key';
import { reconcileDueTransfers } from '@/lib/jobs/transfer-outcome-hooks';
import { sweepCharge } from '@/lib/payments/sweep-charges';
import { pollChain } from '@/lib/payments/poll-chain';
import { uniqueEmail } from '@/test/accounts';
import { createTestCharge, type TestMerchant } from '@/test/fixtures';
import { switchToPrivateDatabase } from '@/test/private-database';
import { TEST_SECRETS } from '@/test/test-secrets';
import { listWallets } from '@/lib/wallets/list-wallets';
import { LOCAL_SWAP_ADDRESSES } from '@/lib/chains/provision-local-swap';
import { swapDeadline, uniswapV2Router02Abi } from '@/lib/chains/uniswap-v2-router';
import type { swapHeldFunds } from '@/lib/swap/swap-held-funds';

export const BSC_USDC = CHAINS.BSC.tokens.find((t) => t.symbol === 'USDC')!.address as Address;
export const PZP = LOCAL_SWAP_ADDRESSES.pzp;

/**
 * Starts a private BSC node with the pool and makes it the app's BSC RPC; the gas tank is funded there.
 * The file also gets its own database: the BSC watcher's cursor and the gas tank's recorded nonces are
 * per chain name, and other test files run their own BSC nodes against the shared one.
 */
export async function startSwapTestChain(): Promise<{ node: LocalChainNode; client: PublicClient }> {
  await switchToPrivateDatabase('swap_test');
  const node = await startLocalChain({ chain: 'BSC' });
  await provisionLocalChain({ chain: 'BSC', url: node.url });
  process.env.RPC_URL_BSC = node.url;
  process.env.LOCAL_CHAINS = 'BSC,POLYGON,POLYGON_AMOY';
  delete process.env.PZP_BSC_TOKEN_ADDRESS;
  delete process.env.BSC_SWAP_ROUTER_ADDRESS;
  resetEnvCache();
  await fundLocalWallet({ chain: 'BSC', url: node.url, address: gasTankAccountFromSeed(TEST_SECRETS.DEPOSIT_HD_SEED).address });
  return { node, client: createPublicClient({ transport: http(node.url) }) };
}

/** swapHeldFunds' input paying at most `quote`'s most, from Germany unless `country` says otherwise. */
export const heldFundsSwapInput = (
  quote: { amountInMaxBaseUnits: string },
  input: { userId: string; chargeId: string; pin: string; country?: string },
): Parameters<typeof swapHeldFunds>[0] => ({
  userId: input.userId,
  chargeId: input.chargeId,
  pin: input.pin,
  maxAmountIn: quote.amountInMaxBaseUnits,
  country: input.country ?? 'DE',
  complianceCountry: input.country ?? 'DE',
});

export function balanceOf(client: PublicClient, token: Address, owner: Address): Promise<bigint> {
  return client.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [owner] });
}

/** A direct-transfer PZP charge (the spec's swap on-ramp charge). */
export async function createPzpCharge(
  merchant: TestMerchant,
  amount: string,
  toAddress: Address,
): Promise<{ chargeId: string; deposit: Address }> {
  const { chargeId, deposit } = await createTestCharge({
    apiKey: merchant.liveKey!,
    body: { chargeData: { symbol: 'PZP', chain: 'BSC', tokenAddress: PZP, amount, toAddress }, isDirectTransfer: true },
  });
  return { chargeId, deposit: deposit.address as Address };
}

/** A consumer with a PIN whose service wallet holds BSC USDC (and, unless `noGas`, BNB for gas). */
export async function fundedConsumer(
  url: string,
  pin: string,
  options: { noGas?: boolean } = {},
): Promise<{ userId: string; wallet: Address }> {
  const email = uniqueEmail('swapper');
  const user = await getDb().transaction((tx) => createUser(tx, { email, emailVerified: true, method: 'email', subject: email }));
  await setPin({ userId: user.id, pin, confirm: pin });
  const wallet = (await listWallets(user.id)).find((w) => w.family === 'evm')!.address as Address;
  await fundLocalWallet({ chain: 'BSC', url, address: wallet });
  if (options.noGas) {
    await createPublicClient({ transport: http(url) }).request({ method: 'anvil_setBalance' as never, params: [wallet, '0x0'] as never });
  }
  return { userId: user.id, wallet };
}

export async function chargeStatus(chargeId: string): Promise<string> {
  const [row] = await getDb().select({ status: charges.status }).from(charges).where(eq(charges.id, chargeId));
  return row!.status;
}

/** Runs the BSC watcher until the charge succeeds (or gives up and returns its status). */
export async function watchUntilSucceeded(client: PublicClient, chargeId: string): Promise<string> {
  for (let i = 0; i < 20; i++) {
    await pollChain('BSC', { client });
    if ((await chargeStatus(chargeId)) === 'succeeded') return 'succeeded';
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return chargeStatus(chargeId);
}

/** Sweep passes (with the reconciler, as the scheduler runs them) until nothing is owed. */
export async function sweepUntilDone(chargeId: string): Promise<void> {
  for (let i = 0; i < 10; i++) {
    if ((await sweepCharge(chargeId)) === 'nothing_owed') return;
    await reconcileDueTransfers({ ignoreSchedule: true });
  }
  throw new Error(`charge ${chargeId} still owes a sweep`);
}

/** Someone else buys PZP with `usdcIn` USDC: the pool's price moves up. */
export async function buyPzpElsewhere(client: PublicClient, url: string, usdcIn: bigint): Promise<void> {
  const wallet = createWalletClient({ account: localDemoPayerAccount, transport: http(url) });
  const wait = async (hash: Hex) => client.waitForTransactionReceipt({ hash });
  await wait(
    await wallet.writeContract({
      address: BSC_USDC,
      abi: erc20Abi,
      functionName: 'approve',
      args: [LOCAL_SWAP_ADDRESSES.router, maxUint256],
      chain: null,
    }),
  );
  const receipt = await wait(
    await wallet.writeContract({
      address: LOCAL_SWAP_ADDRESSES.router,
      abi: uniswapV2Router02Abi,
      functionName: 'swapExactTokensForTokens',
      args: [usdcIn, 0n, [BSC_USDC, PZP], localDemoPayerAccount.address, swapDeadline()],
      chain: null,
    }),
  );
  expect(receipt.status).toBe('success');
}
