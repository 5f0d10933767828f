/**
 * `npm run bench:settlement` (issue 30): on-chain transactions and gas per settled ERC-20 charge, today's path
 * beside the sponsored one (ADR 0035), at each window size of `--sizes` (charges swept per window).
 *
 * On a throwaway local Polygon node (anvil, prague, provisioned as the launcher does), for each size N:
 *  - today: per deposit address, the gas tank's top-up (the estimated fee) and the deposit's own ERC-20 transfer;
 *  - sponsored: per deposit address, one type-4 `handleOps` from the tank with the address's authorization
 *    and its signed UserOperation (what a single relayed sweep sends);
 *  - sponsored, one handleOps per window: **the engine's batch path** — N live USDC charges created through
 *    POST /api/createCharge on a private embedded PostgreSQL, each paid in full, seen by the watcher, swept by
 *    `sweepBatch` (recorded before broadcast, one transfer row per deposit) and settled by the reconciler; its
 *    gas is the receipts' of the transactions the rows name;
 *    Its first sweep of each address also grants the tank an allowance (ADR 0035, "Pull sweeps"): this is the row
 *    "pull path, fresh addresses (first sweep grants)";
 *  - pull path, reused addresses: **the engine again**, a second round of N charges of the same merchant whose
 *    deposit addresses are the first round's, drawn from the merchant's pool (ADR 0038, DEPOSIT_ADDRESS_REUSE with
 *    DEPOSIT_ADDRESS_REUSE_AFTER=0; the bench ends the first round's late-payment watch at once and runs the release
 *    job): one transaction of the tank to itself per window, executeBatch of transferFrom. The tank delegated
 *    itself once before (a one-time cost of its life, not counted);
 *  - the same for addresses delegated before (a reused address: no authorization in the sweep), chain only.
 * Every deposit address is new (but the reused round's) and holds USDC only, as a charge's does; each window pays a
 * new merchant address, but the reused round, which pays its first round's merchant (a pool is per merchant).
 * Gas is the receipts' gasUsed (the setup transactions are not counted).
 *
 *   npm run bench:settlement -- [--sizes 1,10,100]
 */
import { rmSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { randomUUID } from 'node:crypto';
import { createPublicClient, createWalletClient, encodeFunctionData, erc20Abi, getAddress, http, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { CHAINS } from '@/lib/chains/registry';
import { buildSponsoredCall } from '@/lib/smart-accounts/build-sponsored-call';
import { readSponsorFacts } from '@/lib/smart-accounts/read-sponsor-facts';
import { readDelegation } from '@/lib/smart-accounts/read-delegation';
import { signDelegation } from '@/lib/smart-accounts/sign-delegation';
import { SIMPLE_7702_ACCOUNT_ADDRESS } from '@/lib/chains/smart-account-contracts';
import { userOperationOutcome } from '@/lib/smart-accounts/user-operation-outcome';
import { fundLocalWallet, provisionLocalChain, startLocalChain } from '@/scripts/stack/local-chain';

const { values: args } = parseArgs({ options: { sizes: { type: 'string', default: '1,10,100' } } });
const SIZES = args.sizes.split(',').map(Number);
if (!SIZES.every((n) => Number.isInteger(n) && n >= 1 && n <= 100)) {
  console.error('--sizes: integers from 1 to 100, comma-separated');
  process.exit(2);
}

const CHAIN = 'POLYGON' as const;
const USDC = CHAINS[CHAIN].tokens.find((t) => t.symbol === 'USDC')!;
const AMOUNT = 10n * 10n ** BigInt(USDC.decimals);
const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);

const DATA_DIR = path.resolve('.data/bench-settlement');
rmSync(DATA_DIR, { recursive: true, force: true });
const { startEmbeddedPostgres } = await import('@/scripts/stack/embedded-postgres');
const database = await startEmbeddedPostgres({ dataDir: DATA_DIR, persistent: false });
const node = await startLocalChain({ chain: CHAIN });
// The engine's settings for this throwaway world: the node, depth 1 (LOCAL_CHAINS), smart accounts on.
Object.assign(process.env, {
  DATABASE_URL: database.url,
  RPC_URL_POLYGON: node.url,
  LOCAL_CHAINS: CHAIN,
  SMART_ACCOUNT_CHAINS: CHAIN,
  DEPOSIT_ADDRESS_REUSE: 'true',
  DEPOSIT_ADDRESS_REUSE_AFTER: '0', // a released address is leased again at once (ADR 0038)
  LOG_LEVEL: 'warn', // the table is stdout's; warnings and errors go to stderr
});
process.env.WALLET_MASTER_KEY ??= Buffer.alloc(32, 7).toString('base64');
process.env.DEPOSIT_HD_SEED ??= Buffer.alloc(32, 5).toString('base64');
const { migrateDatabase } = await import('@/lib/admin/migrate-database');
const { getDb, closeDb } = await import('@/lib/db/client');
const { charges, depositAddresses, outboundTransfers } = await import('@/lib/db/schema');
const { inArray } = await import('drizzle-orm');
const { createMerchant } = await import('@/lib/onboarding/create-merchant');
const { pollChain } = await import('@/lib/payments/poll-chain');
const { sweepBatch, sweepCharge } = await import('@/lib/payments/sweep-charges');
const { releaseDepositAddresses } = await import('@/lib/jobs/release-deposit-addresses');
const { reconcileDueTransfers } = await import('@/lib/jobs/transfer-outcome-hooks');
const { gasTankAccount, gasTankAddress } = await import('@/lib/transactions/gas-tank');
const { POST: createChargeRoute } = await import('@/app/api/createCharge/route');
try {
  await migrateDatabase(database.url);
  await provisionLocalChain({ chain: CHAIN, url: node.url });
  const transport = http(node.url);
  const client = createPublicClient({ transport, pollingInterval: 50 }); // anvil mines at once: no 4 s receipt polls
  const tank = privateKeyToAccount(generatePrivateKey());
  await client.request({ method: 'anvil_setBalance' as never, params: [tank.address, `0x${(10n ** 24n).toString(16)}`] as never });
  const tankWallet = createWalletClient({ account: tank, transport });
  /** Each run pays a new merchant address, so no run finds the payee's balance slot warmer than another. */
  const transferToNewMerchant = () =>
    encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [privateKeyToAccount(generatePrivateKey()).address, AMOUNT] });

  /** N new deposit addresses holding USDC and no native coin. */
  async function deposits(n: number): Promise<PrivateKeyAccount[]> {
    const accounts: PrivateKeyAccount[] = [];
    for (let i = 0; i < n; i++) {
      const account = privateKeyToAccount(generatePrivateKey());
      await fundLocalWallet({ chain: CHAIN, url: node.url, address: account.address });
      await client.request({ method: 'anvil_setBalance' as never, params: [account.address, '0x0'] as never });
      accounts.push(account);
    }
    return accounts;
  }
  const mined = async (hash: Hex) => {
    const receipt = await client.waitForTransactionReceipt({ hash });
    if (receipt.status !== 'success') throw new Error(`transaction ${hash} reverted`);
    return receipt;
  };

  async function today(n: number) {
    const transferData = transferToNewMerchant();
    let gas = 0n;
    let txs = 0;
    for (const deposit of await deposits(n)) {
      const estimate = await client.estimateGas({ account: deposit.address, to: USDC.address as Address, data: transferData });
      const fees = await client.estimateFeesPerGas();
      gas += (await mined(await tankWallet.sendTransaction({ to: deposit.address, value: estimate * fees.maxFeePerGas, chain: null })))
        .gasUsed;
      const own = createWalletClient({ account: deposit, transport });
      gas += (
        await mined(await own.sendTransaction({ to: USDC.address as Address, data: transferData, gas: estimate, ...fees, chain: null }))
      ).gasUsed;
      txs += 2;
    }
    return { txs, gas, topUps: n };
  }

  async function sponsored(n: number, options: { batched: boolean; delegatedBefore?: boolean }) {
    const accounts = await deposits(n);
    if (options.delegatedBefore) {
      // Addresses used before (a reused deposit address): delegated by an earlier sponsored call of 0 tokens.
      const zero = encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [tank.address, 0n] });
      for (const owner of accounts) {
        const facts = await readSponsorFacts(client, owner.address);
        const call = await buildSponsoredCall({
          chainId: CHAINS[CHAIN].evmChainId!,
          operations: [{ owner, facts, calls: [{ to: USDC.address as Address, value: 0n, data: zero }], callGas: 60_000n }],
          relayer: tank.address,
        });
        await mined(
          await tankWallet.sendTransaction({
            chain: null,
            to: call.to,
            data: call.data,
            gas: call.gas,
            ...(call.authorizationList.length ? { authorizationList: call.authorizationList } : {}),
          }),
        );
      }
    }
    const transferData = transferToNewMerchant();
    const operations = await Promise.all(
      accounts.map(async (owner) => ({
        owner,
        facts: await readSponsorFacts(client, owner.address),
        calls: [{ to: USDC.address as Address, value: 0n, data: transferData }],
        callGas: await client.estimateGas({ account: owner.address, to: USDC.address as Address, data: transferData }),
      })),
    );
    const groups = options.batched ? [operations] : operations.map((op) => [op]);
    let gas = 0n;
    for (const group of groups) {
      const call = await buildSponsoredCall({ chainId: CHAINS[CHAIN].evmChainId!, operations: group, relayer: tank.address });
      const receipt = await mined(
        await tankWallet.sendTransaction({
          chain: null,
          to: call.to,
          data: call.data,
          gas: call.gas,
          ...(call.authorizationList.length ? { authorizationList: call.authorizationList } : {}),
        }),
      );
      for (const op of group) {
        if (userOperationOutcome(receipt, op.owner.address) !== 'success') throw new Error('a sponsored sweep did not move its tokens');
      }
      gas += receipt.gasUsed;
    }
    for (const owner of accounts) {
      if ((await client.getBalance({ address: owner.address })) !== 0n) throw new Error('a deposit address received native coin');
    }
    return { txs: groups.length, gas, topUps: 0 };
  }

  // The engine's gas tank (from DEPOSIT_HD_SEED) and a payer holding USDC and POL.
  await client.request({ method: 'anvil_setBalance' as never, params: [gasTankAddress(), `0x${(10n ** 24n).toString(16)}`] as never });
  const payer = privateKeyToAccount(generatePrivateKey());
  await fundLocalWallet({ chain: CHAIN, url: node.url, address: payer.address });
  await client.request({
    method: 'anvil_setBalance' as never,
    params: [payer.address, `0x${(10n ** 24n).toString(16)}`] as never,
  });
  const payerWallet = createWalletClient({ account: payer, transport });
  await pollChain(CHAIN); // the watcher starts here
  {
    // The engine's tank delegates itself once in its life (its first pull would carry it): done here, not counted.
    const engineTank = gasTankAccount();
    const nonce = await client.getTransactionCount({ address: engineTank.address });
    const authorization = await signDelegation(engineTank, { chainId: CHAINS[CHAIN].evmChainId!, nonce: nonce + 1 });
    await mined(
      await createWalletClient({ account: engineTank, transport }).sendTransaction({
        chain: null,
        to: engineTank.address,
        gas: 100_000n,
        authorizationList: [authorization],
      }),
    );
    if ((await readDelegation(client, engineTank.address)) !== SIMPLE_7702_ACCOUNT_ADDRESS) throw new Error('the tank did not delegate');
  }

  /** N charges of a new merchant, paid in full and succeeded, swept by the engine's batch path, settled. */
  async function engineBatch(n: number, reuse?: { apiKey: string; chargeIds: string[]; addresses: string[] }) {
    let apiKey = reuse?.apiKey;
    if (reuse) {
      // The first round's leases end (their late-payment watch cut short) and their addresses go back to the pool.
      for (const id of reuse.chargeIds) await sweepCharge(id);
      await getDb()
        .update(depositAddresses)
        .set({ watchUntil: new Date(Date.now() - 1_000) })
        .where(inArray(depositAddresses.chargeId, reuse.chargeIds));
      const released = await releaseDepositAddresses({ batch: 1_000 });
      if (released.released < n) throw new Error(`only ${released.released} of ${n} deposit addresses went back to the pool`);
    } else {
      const { keys } = await createMerchant({ email: `bench-${randomUUID()}@settlement.example`, name: `Settlement ${n}`, verified: true });
      apiKey = keys.find((key) => key.mode === 'live')!.plaintext;
    }
    const chargeIds: string[] = [];
    for (let i = 0; i < n; i++) {
      const response = await createChargeRoute(
        new Request('http://localhost/api/createCharge', {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': apiKey! },
          body: JSON.stringify({ chargeData: { symbol: 'USDC', chain: CHAIN, tokenAddress: USDC.address, amount: '10' } }),
        }),
        { params: Promise.resolve({}) },
      );
      if (response.status !== 200) throw new Error(`createCharge answered ${response.status}: ${await response.text()}`);
      chargeIds.push(((await response.json()) as { data: { chargeId: string } }).data.chargeId);
    }
    if (reuse) {
      const leased = await getDb().select().from(depositAddresses).where(inArray(depositAddresses.chargeId, chargeIds));
      const earlier = new Set(reuse.addresses);
      if (!leased.every((d) => earlier.has(d.address))) throw new Error('a second-round charge did not lease a first-round address');
    }
    const deposits = await getDb().select().from(depositAddresses).where(inArray(depositAddresses.chargeId, chargeIds));
    for (const deposit of deposits) {
      await mined(
        await payerWallet.writeContract({
          address: USDC.address as Address,
          abi: erc20Abi,
          functionName: 'transfer',
          args: [deposit.address as Address, AMOUNT],
          chain: null,
        }),
      );
    }
    await client.request({ method: 'anvil_mine' as never, params: ['0x2'] as never });
    // The watcher catches up block range by block range (the other paths mined many blocks meanwhile).
    for (let poll = 0; poll < 200; poll++) {
      await pollChain(CHAIN);
      const rows = await getDb().select({ status: charges.status }).from(charges).where(inArray(charges.id, chargeIds));
      if (rows.every((row) => row.status === 'succeeded')) break;
    }
    const outcomes = await sweepBatch(chargeIds);
    if (![...outcomes.values()].every((o) => o === 'swept'))
      throw new Error(`not every charge was swept: ${[...outcomes.values()].join(', ')}`);
    for (let round = 0; round < 30; round++) {
      await client.request({ method: 'anvil_mine' as never, params: ['0x1'] as never });
      await reconcileDueTransfers({ ignoreSchedule: true });
      const sweeps = await getDb().select().from(outboundTransfers).where(inArray(outboundTransfers.chargeId, chargeIds));
      if (sweeps.every((t) => t.status === 'confirmed')) {
        const hashes = [...new Set(sweeps.map((t) => t.txHash as Hex))];
        let gas = 0n;
        for (const hash of hashes) gas += (await client.getTransactionReceipt({ hash })).gasUsed;
        for (const deposit of deposits) {
          const [tokens, native] = await Promise.all([
            client.readContract({
              address: USDC.address as Address,
              abi: erc20Abi,
              functionName: 'balanceOf',
              args: [deposit.address as Address],
            }),
            client.getBalance({ address: deposit.address as Address }),
          ]);
          if (tokens !== 0n || native !== 0n)
            throw new Error(`deposit ${deposit.address} holds ${tokens} USDC and ${native} POL after its sweep`);
        }
        const pulls = sweeps.filter((t) => t.callTo && getAddress(t.callTo) === gasTankAddress()).length;
        if (reuse && pulls !== n) throw new Error(`${pulls} of ${n} reused addresses were pulled`);
        if (!reuse && pulls !== 0) throw new Error('a fresh address was pulled');
        return {
          txs: hashes.length,
          gas,
          topUps: sweeps.filter((t) => t.purpose === 'gas_topup').length,
          reuse: { apiKey: apiKey!, chargeIds, addresses: deposits.map((d) => d.address) },
        };
      }
    }
    throw new Error('the batch did not settle');
  }

  const rows: string[][] = [['path', 'charges per window', 'transactions per charge', 'gas per charge', 'top-ups', 'vs today']];
  for (const n of SIZES) {
    log(`window of ${n}: today's path`);
    const base = await today(n);
    const sponsoredPerCharge = await (log(`window of ${n}: sponsored`), sponsored(n, { batched: false }));
    const fresh = await (log(`window of ${n}: the engine's batched sweep (granting)`), engineBatch(n));
    const results = [
      ['today (top-up + transfer)', base],
      ['sponsored, one handleOps per charge', sponsoredPerCharge],
      ['pull path (engine), fresh addresses (first sweep grants)', fresh],
      [
        'pull path (engine), addresses reused (granted before)',
        await (log(`window of ${n}: the engine's pull of reused addresses`), engineBatch(n, fresh.reuse)),
      ],
      [
        'sponsored, per window, reused addresses',
        await (log(`window of ${n}: sponsored, batched, delegated before`), sponsored(n, { batched: true, delegatedBefore: true })),
      ],
    ] as const;
    for (const [path, r] of results) {
      const perCharge = r.gas / BigInt(n);
      rows.push([
        path,
        String(n),
        (r.txs / n).toFixed(2),
        perCharge.toString(),
        String(r.topUps),
        `${((Number(perCharge) / Number(base.gas / BigInt(n))) * 100).toFixed(0)}%`,
      ]);
    }
  }
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((row) => row[c]!.length)));
  for (const row of rows) console.log(row.map((cell, c) => cell.padEnd(widths[c]!)).join('  '));
} finally {
  await closeDb();
  await node.stop();
  await database.stop();
}
// Timers the engine's verbs start (the watcher's and the delivery worker's wake-ups) must not keep the bench alive.
process.exit(0);
