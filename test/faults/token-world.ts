/**
 * The fault suite's world for a token on a private node (token-faults, tank-competing-faults, relayer-faults; the
 * native-coin files have money-world.ts), driven by harness.ts: a private database, a private anvil of one chain with the registry's ERC-20 planted as
 * the launcher plants it (scripts/stack/local-chain.ts), the app reaching the node only through the RPC fault
 * proxy, a merchant with its wallet funded on the record, and the Scenario audit:
 *  - every fresh recipient got exactly what it was owed in the token (never twice, never short);
 *  - every expected charge status, and every counted payment is in the canonical chain as recorded;
 *  - every transfer of the scenario ended `confirmed` (or `failed`, where the scenario expects a cancel);
 *  - the gas tank: its balance moved by exactly what its recorded transfers cost (value + fee), nothing else;
 *  - the ledger reconciles with the chain (lib/ledger/reconcile-chains.ts);
 *  - the faults the scenario injected fired (the proxy's counters, or the scenario's own notes).
 */
import { and, eq, or } from 'drizzle-orm';
import {
  createPublicClient,
  createWalletClient,
  erc20Abi,
  http,
  parseEther,
  parseUnits,
  type Address,
  type Hex,
  type PublicClient,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { expect } from 'vitest';
import { requiredConfirmations } from '@/lib/chains/required-confirmations';
import { CHAINS, type ChainName, type TokenInfo } from '@/lib/chains/registry';
import { expireDueCharges } from '@/lib/charges/expire-charges';
import { getDb } from '@/lib/db/client';
import { outboundTransfers } from '@/lib/db/schema';
import { resetEnvCache } from '@/lib/env';
import { failUnderpaidCharges } from '@/lib/payments/settle-charge';
import { chargesAwaitingSweep, sweepCharge } from '@/lib/payments/sweep-charges';
import { gasTankAccountFromSeed } from '@/lib/transactions/gas-tank-key';
import { fundLocalWallet, provisionLocalChain, startLocalChain, type LocalChainNode } from '@/scripts/stack/local-chain';
import { createTestCharge, type TestMerchant } from '@/test/fixtures';
import { switchToPrivateDatabase } from '@/test/private-database';
import { TEST_SECRETS } from '@/test/test-secrets';
import {
  anvilOf,
  auditEvmScenario,
  evmJobsOnce,
  firedText,
  merchantWithOwner,
  newUserWithPin,
  sendNativeOn,
  scenarioTest,
  settleChain,
  withdrawalForm,
  outcomeColumns,
  writeOutcomeTable,
  type Arrival,
  type OutcomeRow,
} from './harness';
import { startRpcFaultProxy, type FaultPlan, type RpcFaultProxy } from './rpc-fault-proxy';

export interface TokenWorld {
  chain: ChainName;
  token: TokenInfo;
  native: TokenInfo;
  node: LocalChainNode;
  /** The node itself (the suite's own view; the app goes through `proxy`). */
  client: PublicClient;
  proxy: RpcFaultProxy;
  depth: number;
  funder: PrivateKeyAccount;
  tank: Address;
  /** The tank's balance before anything was recorded, plus what scenarios added or took outside the service. */
  tankFunded: bigint;
  merchant: TestMerchant;
  ownerId: string;
  merchantWallet: Address;
}

let world: TokenWorld;
export const w = (): TokenWorld => world;

/**
 * Starts the world: `chain`'s node with its registry tokens, the proxy, env pointing the app at the proxy
 * (`localChains`: LOCAL_CHAINS, which lowers the confirmation depth of the chains it names to 1).
 */
export async function startTokenWorld(options: {
  chain: ChainName;
  symbol: string;
  dbPrefix: string;
  localChains: string;
  merchantFunding: string;
}): Promise<TokenWorld> {
  await switchToPrivateDatabase(options.dbPrefix);
  const info = CHAINS[options.chain];
  const token = info.tokens.find((t) => t.symbol === options.symbol)!;
  const native = info.tokens.find((t) => t.isNative)!;
  const node = await startLocalChain({ chain: options.chain });
  const funder = privateKeyToAccount(generatePrivateKey());
  await provisionLocalChain({ chain: options.chain, url: node.url, fundWallets: [funder.address] });
  const proxy = await startRpcFaultProxy(node.url);
  process.env[`RPC_URL_${options.chain}`] = proxy.url;
  process.env.LOCAL_CHAINS = options.localChains;
  process.env.TRANSFER_STUCK_AFTER_SECONDS = '1';
  process.env.TRANSFER_CANCEL_AFTER_FAILURES = '3';
  resetEnvCache();
  const client = createPublicClient({ transport: http(node.url) });
  const tank = gasTankAccountFromSeed(TEST_SECRETS.DEPOSIT_HD_SEED).address;
  await fundLocalWallet({ chain: options.chain, url: node.url, address: tank });
  await fundLocalWallet({ chain: options.chain, url: node.url, address: funder.address });
  world = {
    chain: options.chain,
    token,
    native,
    node,
    client,
    proxy,
    depth: requiredConfirmations(options.chain),
    funder,
    tank,
    tankFunded: await client.getBalance({ address: tank }),
  } as TokenWorld;

  await jobsOnce(); // the scanners start here: everything after is on the record
  const { merchant, ownerId, merchantWallet } = await merchantWithOwner('evm', () => newConsumer('0'));
  Object.assign(world, { merchant, ownerId, merchantWallet: merchantWallet as Address });
  await sendToken(funder, world.merchantWallet, units(options.merchantFunding));
  await settle();
  return world;
}

export async function stopTokenWorld(file: string): Promise<void> {
  writeTable(file);
  await world?.proxy.close();
  await world?.node.stop();
}

// ---------------------------------------------------------------------------------------------------------
// The chain, driven directly
// ---------------------------------------------------------------------------------------------------------

const anvil = anvilOf(() => world.client);
export const { rpc, mine, automine, setNativeBalance } = anvil;
export const units = (amount: string) => parseUnits(amount, world.token.decimals);

export const tokenBalance = (address: Address) =>
  world.client.readContract({ address: world.token.address as Address, abi: erc20Abi, functionName: 'balanceOf', args: [address] });

export async function sendToken(account: PrivateKeyAccount, to: Address, value: bigint): Promise<Hex> {
  const wallet = createWalletClient({ account, transport: http(world.node.url) });
  const hash = await wallet.writeContract({
    address: world.token.address as Address,
    abi: erc20Abi,
    functionName: 'transfer',
    args: [to, value],
    chain: null,
  });
  await world.client.waitForTransactionReceipt({ hash });
  return hash;
}

/** Native coin sent on the record (a transaction the wallet indexer sees), as a user funding their wallet would. */
export const sendNative = (account: PrivateKeyAccount, to: Address, value: bigint): Promise<Hex> =>
  sendNativeOn({ url: world.node.url, client: world.client }, account, to, value);

/** A fresh outside wallet with native coin for its own gas and `amount` of the token. */
export async function outsideWallet(amount: string): Promise<PrivateKeyAccount> {
  const account = privateKeyToAccount(generatePrivateKey());
  await setNativeBalance(account.address, parseEther('10'));
  await sendToken(world.funder, account.address, units(amount));
  return account;
}

// ---------------------------------------------------------------------------------------------------------
// The service's world: consumers, charges, refunds, withdrawals
// ---------------------------------------------------------------------------------------------------------

/** A signed-up user with a PIN whose service wallet received `amount` of the token from outside (no native coin: its spends need the tank). */
export async function newConsumer(amount: string): Promise<{ userId: string; address: Address }> {
  const { userId, address } = await newUserWithPin('evm');
  if (amount !== '0') await sendToken(world.funder, address as Address, units(amount));
  return { userId, address: address as Address };
}

/** A live charge in the token (the token is a main network's: live mode), with `expiresInSeconds` if given. */
export async function newCharge(amount: string): Promise<{ chargeId: string; deposit: Address }> {
  const { chargeId, deposit } = await createTestCharge({
    apiKey: world.merchant.liveKey,
    body: { chargeData: { symbol: world.token.symbol, chain: world.chain, tokenAddress: world.token.address, amount } },
  });
  return { chargeId, deposit: deposit.address as Address };
}

/** A charge paid in the token from a fresh outside wallet (its refunds go back there), settled. */
export async function paidCharge(
  amount: string,
  options: { sweeps?: boolean } = {},
): Promise<{ chargeId: string; deposit: Address; payer: Address }> {
  const charge = await newCharge(amount);
  const payer = await outsideWallet(amount);
  await sendToken(payer, charge.deposit, units(amount));
  await settle(40, options);
  return { ...charge, payer: payer.address };
}

export const refundCtx = () => ({ merchantId: world.merchant.id, mode: 'live' as const, actor: 'api_key:faults' });

export const withdrawal = (toAddress: Address, amount: string, withdrawalId?: string) =>
  withdrawalForm({
    userId: world.ownerId,
    merchantId: world.merchant.id,
    mode: 'live',
    chain: world.chain,
    tokenAddress: world.token.address,
    amount,
    toAddress,
    ...(withdrawalId ? { withdrawalId } : {}),
  });

/** The chain's transfers of `chargeId` with `purpose`. */
export const transfersOf = (chargeId: string, purpose: 'refund' | 'sweep' | 'gas_topup' | 'balance_payment') =>
  getDb()
    .select()
    .from(outboundTransfers)
    .where(and(eq(outboundTransfers.chargeId, chargeId), eq(outboundTransfers.purpose, purpose)));

/**
 * What the background jobs do, once: the engine's reconciler, the charge watcher, the wallet indexer, and
 * (unlike faults.test.ts) the sweeps, expiry and underpaid-charge jobs, so refunds meet in-flight sweeps.
 */
export async function jobsOnce(options: { sweeps?: boolean } = {}): Promise<void> {
  await evmJobsOnce(world.chain);
  await expireDueCharges().catch(() => 0);
  await getDb()
    .transaction((tx) => failUnderpaidCharges(tx))
    .catch(() => 0);
  if (options.sweeps !== false) await sweepsDue();
}

/** The sweep job, in the suite's time: a sweep put off (60 s after an outage, 15 s while in flight) is due at the next pass. */
async function sweepsDue(): Promise<void> {
  const later = new Date(Date.now() + 24 * 3600_000);
  for (const chargeId of await chargesAwaitingSweep(50, later)) await sweepCharge(chargeId).catch(() => null);
}

/** Heals nothing: mines and runs the jobs until no transfer is open and the newest block is at depth. */
export const settle = (maxRounds = 40, options: { sweeps?: boolean } = {}): Promise<void> =>
  settleChain({
    chain: world.chain,
    depth: world.depth,
    anvil,
    jobs: () => jobsOnce(options),
    maxRounds,
    step: Math.max(1, Math.ceil(world.depth / 3)),
  });

// ---------------------------------------------------------------------------------------------------------
// Scenarios and their audit
// ---------------------------------------------------------------------------------------------------------

export interface Outcome extends OutcomeRow {
  faultClass: string;
}
const table: Outcome[] = [];

export class Scenario {
  readonly started = new Date();
  private readonly fired: Record<string, number> = {};
  private readonly required: string[] = [];
  private readonly arrivals: Arrival[] = [];
  private readonly chargeExpectations: { chargeId: string; status: string }[] = [];
  private readonly expectedFailures = new Set<string>();

  constructor(
    readonly name: string,
    readonly faultClass: string,
  ) {}

  /** Replaces the proxy's faults; what fired so far is kept. */
  inject(plan: FaultPlan): void {
    this.collectFaults();
    world.proxy.inject(plan);
  }

  heal(): void {
    this.inject({});
  }

  note(fault: string, times = 1): void {
    if (times > 0) this.fired[fault] = (this.fired[fault] ?? 0) + times;
  }

  /** The audit fails unless `fault` fired at least once (a proxy counter, or a note). */
  requireFault(...faults: string[]): void {
    this.required.push(...faults);
  }

  /** What the scenario itself added to (or took from) the tank outside the service (an operator's refill). */
  adjustTank(delta: bigint): void {
    world.tankFunded += delta;
  }

  /** A transfer the scenario expects to end `failed` (canceled): the audit then wants it failed, not confirmed. */
  expectFailed(transferId: string): void {
    this.expectedFailures.add(transferId);
  }

  private collectFaults(): void {
    for (const [fault, count] of Object.entries(world.proxy.counts())) this.note(fault, count);
  }

  /** `address` must end up exactly `amount` of the token richer than now (or than `baseline`). */
  async expectArrival(label: string, address: Address, amount: bigint, baseline?: bigint): Promise<void> {
    this.arrivals.push({ label, address, amount, baseline: baseline ?? (await tokenBalance(address)) });
  }

  expectCharge(chargeId: string, status: string): void {
    this.chargeExpectations.push({ chargeId, status });
  }

  async audit(): Promise<Outcome> {
    this.heal();
    await settle();
    const problems: string[] = [];
    for (const fault of this.required) if (!this.fired[fault]) problems.push(`the fault ${fault} never fired`);
    const audit = await auditEvmScenario({
      chain: world.chain,
      client: world.client,
      started: this.started,
      arrivals: this.arrivals,
      balanceOf: tokenBalance,
      charges: this.chargeExpectations,
      expectedFailures: this.expectedFailures,
      detail: async (transfer) =>
        `[${transfer.fromAddress} → ${transfer.toAddress}, ${transfer.amountBaseUnits}, nonce ${transfer.nonce}, gas ${transfer.gasLimit}, ` +
        `sender holds ${await tokenBalance(transfer.fromAddress as Address)}, depends on ${transfer.dependsOnTransferIds.join(' ') || '—'}]`,
    });
    problems.push(...audit.problems);
    const transfers = audit.transfers;

    // The gas tank, reconciled like any wallet: what left it since it was funded is what its recorded
    // transfers cost (value and fee), cumulative over the file's scenarios.
    let unaccounted = audit.counts.unaccounted;
    // Relayed transfers (ADR 0035) move another account's value; their fee (a batch's shared across its rows) is the tank's.
    const tankTransfers = await getDb()
      .select()
      .from(outboundTransfers)
      .where(
        and(
          eq(outboundTransfers.chain, world.chain),
          or(eq(outboundTransfers.fromAddress, world.tank), eq(outboundTransfers.relayerAddress, world.tank)),
        ),
      );
    const tankSpent = tankTransfers.reduce(
      (sum, t) => sum + (t.status === 'confirmed' && t.fromAddress === world.tank ? t.amountBaseUnits : 0n) + (t.gasFeeBaseUnits ?? 0n),
      0n,
    );
    const tankNow = await world.client.getBalance({ address: world.tank });
    if (world.tankFunded - tankSpent !== tankNow) {
      unaccounted++;
      problems.push(
        `gas tank holds ${tankNow}, its records say ${world.tankFunded - tankSpent} (spent ${tankSpent} in ${tankTransfers.length} transfers)`,
      );
    }

    const outcome: Outcome = {
      scenario: this.name,
      faultClass: this.faultClass,
      faults: firedText(this.fired),
      ...audit.counts,
      unaccounted,
    };
    table.push(outcome);
    if (problems.length) {
      // What moved, for whoever reads the failure.
      for (const t of transfers) {
        problems.push(
          `  (${t.purpose} ${t.status}: ${t.fromAddress} → ${t.toAddress} ${t.amountBaseUnits} of ${t.tokenAddress}, charge ${t.chargeId ?? '—'})`,
        );
      }
    }
    expect(problems, problems.join('\n')).toEqual([]);
    return outcome;
  }
}

/** A scenario of `faultClass`: its body injects faults and states expectations; the audit runs after, healed. */
export function scenario(faultClass: string, name: string, body: (s: Scenario) => Promise<void>): void {
  scenarioTest(name, () => new Scenario(name, faultClass), body, {
    heal: async (s) => {
      await automine(true);
      s.heal();
    },
  });
}

function writeTable(file: string): void {
  writeOutcomeTable(file, table, {
    title: `Fault-injection suite (${file})`,
    columns: outcomeColumns({ byClass: true, faultsHeading: 'Faults injected' }),
    summary: () => [],
  });
}
