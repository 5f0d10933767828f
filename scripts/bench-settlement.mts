/**
 * `npm run bench:settlement` (skeleton, issue 30): on-chain transactions and gas per settled ERC-20 charge,
 * today's path beside the sponsored one (ADR 0035), at each window size of `--sizes` (charges swept per window).
 *
 * On a throwaway local Polygon node (anvil, prague, provisioned as the launcher does), for each size N:
 *  - today: per deposit address, the gas tank's top-up (the estimated fee) and the deposit's own ERC-20 transfer;
 *  - sponsored: per deposit address, one type-4 `handleOps` from the tank with the address's authorization
 *    and its signed UserOperation (what the sweeper records today, lib/transactions/record-transfer.ts);
 *  - sponsored, batched: one `handleOps` for the N addresses (the building block of batched sweeps, point 3);
 *  - the same for addresses delegated before (a reused address: no authorization in the sweep).
 * Every deposit address is new and holds USDC only, as a charge's does; each run pays a new merchant address.
 * Gas is the receipts' gasUsed (the setup transactions are not counted).
 *
 * What it does not do yet: run the worker and the database (the records, the reconciler), and the 100-charge
 * window; the figures are the chain's side of a sweep, which is what the issue's aim measures.
 *
 *   npm run bench:settlement -- [--sizes 1,10]
 */
import { parseArgs } from 'node:util';
import { createPublicClient, createWalletClient, encodeFunctionData, erc20Abi, http, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { CHAINS } from '@/lib/chains/registry';
import { buildSponsoredCall } from '@/lib/smart-accounts/build-sponsored-call';
import { readSponsorFacts } from '@/lib/smart-accounts/read-sponsor-facts';
import { userOperationOutcome } from '@/lib/smart-accounts/user-operation-outcome';
import { fundLocalWallet, provisionLocalChain, startLocalChain } from '@/scripts/stack/local-chain';

const { values: args } = parseArgs({ options: { sizes: { type: 'string', default: '1,10' } } });
const SIZES = args.sizes.split(',').map(Number);
if (!SIZES.every((n) => Number.isInteger(n) && n >= 1 && n <= 100)) {
  console.error('--sizes: integers from 1 to 100, comma-separated');
  process.exit(2);
}

const CHAIN = 'POLYGON' as const;
const USDC = CHAINS[CHAIN].tokens.find((t) => t.symbol === 'USDC')!;
const AMOUNT = 10n * 10n ** BigInt(USDC.decimals);
const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);

const node = await startLocalChain({ chain: CHAIN });
try {
  await provisionLocalChain({ chain: CHAIN, url: node.url });
  const transport = http(node.url);
  const client = createPublicClient({ transport });
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

  const rows: string[][] = [['path', 'charges per window', 'transactions per charge', 'gas per charge', 'top-ups', 'vs today']];
  for (const n of SIZES) {
    log(`window of ${n}: today's path`);
    const base = await today(n);
    const results = [
      ['today (top-up + transfer)', base],
      ['sponsored, one handleOps per charge', await (log(`window of ${n}: sponsored`), sponsored(n, { batched: false }))],
      ['sponsored, one handleOps per window', await (log(`window of ${n}: sponsored, batched`), sponsored(n, { batched: true }))],
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
  await node.stop();
}
