/**
 * The transfer gate (transfer-policy.ts, ADR 0025).
 *
 * (a) The table against the code, like app/security-table.test.ts does for routes: every call of
 *     `recordTransfer(` and `authorizeTransfer(` under lib/ is found in the source and read with the
 *     TypeScript checker — the purpose and the (authority, destination class) its `authorization` can
 *     take — and each combination must be a row of TRANSFER_POLICY. A new caller, or a new purpose, without
 *     its row fails here; so does an authorization whose kind or class is a plain string (it must be
 *     checkable).
 * (b) The gate on real PostgreSQL and anvil: what it refuses, with nothing signed or recorded, and what
 *     it lets through.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { and, eq } from 'drizzle-orm';
import ts from 'typescript';
import { createPublicClient, encodeFunctionData, erc20Abi, getAddress, http, maxUint256, parseAbi, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '@/lib/accounts/create-user';
import { setPin } from '@/lib/accounts/set-pin';
import { CHAINS, nativeToken } from '@/lib/chains/registry';
import { getDb, type DbOrTx } from '@/lib/db/client';
import { charges, merchantContracts, merchantMembers, outboundTransfers, refunds, wallets } from '@/lib/db/schema';
import { rpcUrl } from '@/lib/env';
import { newId } from '@/lib/ids';
import { fundLocalWallet } from '@/scripts/stack/local-chain';
import { payFromBalance } from '@/lib/payments/pay-from-balance';
import { pollChain } from '@/lib/payments/poll-chain';
import { listWallets } from '@/lib/wallets/list-wallets';
import { ensureMerchantWallets } from '@/lib/keyring/create-wallets';
import { openWalletKey } from '@/lib/keyring/envelope';
import { POST as refundRoute } from '@/app/api/charges/[chargeId]/refunds/route';
import { newUser, uniqueEmail } from '@/test/accounts';
import { callRoute, createTestCharge, newMerchant, type TestMerchant } from '@/test/fixtures';
import { accountFromKey } from './account-from-key';
import { prepareTransfer, type TransferCall } from './prepare-transfer';
import { recordTransfer, type RecordedTransfer } from './record-transfer';
import { TRANSFER_PURPOSES, type TransferPurpose } from './state';
import { TOKEN_MOVING_SELECTORS } from './token-moving-selectors';
import {
  POLICY_PURPOSES,
  SYSTEM_JOBS,
  TRANSFER_POLICY,
  decideTransfer,
  type DestinationClass,
  type PolicyRow,
  type TransferAuthorization,
} from './transfer-policy';

const ROOT = path.resolve(import.meta.dirname, '../..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return walkable(entry.name) ? sourceFiles(full) : [];
    return /\.(ts|tsx|mts)$/.test(entry.name) && !/\.test\.(ts|tsx|mts)$/.test(entry.name) ? [full] : [];
  });
}
const walkable = (name: string) => name !== 'node_modules' && !name.startsWith('.');

const GATE_CALLS = ['recordTransfer', 'recordChainTransfer', 'recordSolanaTransfer', 'authorizeTransfer'] as const;
/**
 * The engine's own forwarding of its caller's authorization (recordChainTransfer → recordTransfer or
 * recordSolanaTransfer → authorizeTransfer; recordRelayedBatch → authorizeTransfer per item): the callers are
 * checked instead (a batch's items are the sweeper's, `system:sweep` to the charge's payee, which the single
 * sweep's call site states and lib/payments/sweep-batched.test.ts passes through the gate at run time).
 */
const FORWARDING = [
  ...[
    'lib/transactions/record-transfer.ts',
    'lib/transactions/record-chain-transfer.ts',
    'lib/transactions/solana/solana-transfers.ts',
  ].map((file) => ({ file, authorization: 'input.authorization' })),
  { file: 'lib/transactions/record-relayed-batch.ts', authorization: 'item.authorization' },
];
/** Rows no caller uses yet, each waiting for the change that wires it (none today). */
const AWAITING_CALLERS: PolicyRow[] = [];

interface CallSite {
  where: string;
  purposes: string[];
  combinations: { authority: string; destination: string }[];
}

/** String literal values of a type (a union of literals), or undefined when it is not made of literals only. */
function literals(type: ts.Type | undefined): string[] | undefined {
  if (!type) return undefined;
  const parts = type.isUnion() ? type.types : [type];
  const values = parts.map((t) => (t.isStringLiteral() ? t.value : undefined));
  return values.every((v): v is string => v !== undefined) ? values : undefined;
}

function propertyType(checker: ts.TypeChecker, type: ts.Type, name: string, at: ts.Node): ts.Type | undefined {
  const symbol = checker.getPropertyOfType(type, name);
  return symbol ? checker.getTypeOfSymbolAtLocation(symbol, at) : undefined;
}

/** Every call of the gate under lib/ with what its arguments can be, read by the TypeScript checker. */
function gateCallSites(): { sites: CallSite[]; problems: string[] } {
  const files = sourceFiles(path.join(ROOT, 'lib')).filter((file) =>
    GATE_CALLS.some((name) => readFileSync(file, 'utf8').includes(`${name}(`)),
  );
  const config = ts.getParsedCommandLineOfConfigFile(
    path.join(ROOT, 'tsconfig.json'),
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} },
  )!;
  const program = ts.createProgram(files, { ...config.options, noEmit: true, incremental: false, skipLibCheck: true });
  const checker = program.getTypeChecker();
  const sites: CallSite[] = [];
  const problems: string[] = [];
  for (const file of files) {
    const source = program.getSourceFile(file)!;
    const relative = path.relative(ROOT, file);
    const visit = (node: ts.Node): void => {
      if (
        ts.isCallExpression(node) &&
        ts.isIdentifier(node.expression) &&
        (GATE_CALLS as readonly string[]).includes(node.expression.text)
      ) {
        const where = `${relative}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
        const input = node.arguments[1];
        if (!input || !ts.isObjectLiteralExpression(input)) {
          problems.push(`${where}: pass the input as an object literal, so its purpose and authorization can be read`);
          return;
        }
        const property = (name: string) =>
          input.properties.find(
            (p): p is ts.PropertyAssignment | ts.ShorthandPropertyAssignment =>
              (ts.isPropertyAssignment(p) || ts.isShorthandPropertyAssignment(p)) && p.name.getText() === name,
          );
        const authorizationNode = property('authorization');
        const purposeNode = property('purpose');
        if (!authorizationNode || !purposeNode) {
          problems.push(`${where}: no purpose or authorization`);
          return;
        }
        const authorizationExpression = ts.isPropertyAssignment(authorizationNode) ? authorizationNode.initializer : authorizationNode.name;
        if (FORWARDING.some((f) => relative === f.file && authorizationExpression.getText() === f.authorization)) return;
        const purposeExpression = ts.isPropertyAssignment(purposeNode) ? purposeNode.initializer : purposeNode.name;
        const purposes = literals(checker.getTypeAtLocation(purposeExpression));
        const authorizationType = checker.getTypeAtLocation(authorizationExpression);
        // A union of authorizations (one per branch of the caller) is read branch by branch: each pairs
        // only its own authorities with its own destination classes.
        const branches = authorizationType.isUnion() ? authorizationType.types : [authorizationType];
        const combinations: { authority: string; destination: string }[] = [];
        for (const branch of branches) {
          const authorityType = propertyType(checker, branch, 'authority', authorizationExpression);
          const destinationType = propertyType(checker, branch, 'destination', authorizationExpression);
          const destinations = destinationType
            ? literals(propertyType(checker, destinationType, 'class', authorizationExpression))
            : undefined;
          const authorities: string[] = [];
          for (const member of authorityType ? (authorityType.isUnion() ? authorityType.types : [authorityType]) : []) {
            const kinds = literals(propertyType(checker, member, 'kind', authorizationExpression));
            if (!kinds) return void problems.push(`${where}: the authority's kind is not a literal type`);
            for (const kind of kinds) {
              if (kind !== 'system') authorities.push(kind);
              else {
                const jobs = literals(propertyType(checker, member, 'job', authorizationExpression));
                if (!jobs) return void problems.push(`${where}: the system job is not a literal type`);
                authorities.push(...jobs.map((job) => `system:${job}`));
              }
            }
          }
          if (!destinations || !authorities.length) {
            problems.push(
              `${where}: purpose, authority kind and destination class must be literal types (got ${checker.typeToString(authorizationType)})`,
            );
            return;
          }
          combinations.push(...authorities.flatMap((authority) => destinations.map((destination) => ({ authority, destination }))));
        }
        if (!purposes) {
          problems.push(`${where}: the purpose must be a literal type`);
          return;
        }
        sites.push({ where, purposes, combinations });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return { sites, problems };
}

describe('the policy table against the code', () => {
  it('every transfer purpose (and the reconciler’s cancel) has at least one row, and every row names a known purpose', () => {
    for (const purpose of [...TRANSFER_PURPOSES, 'cancel' as const]) {
      expect(
        TRANSFER_POLICY.some((row) => row.purpose === purpose),
        `purpose ${purpose} has no row in TRANSFER_POLICY`,
      ).toBe(true);
    }
    for (const row of TRANSFER_POLICY) expect(POLICY_PURPOSES).toContain(row.purpose);
  });

  it('every system job and every destination class has a row (a vocabulary word without a row would be refused everywhere)', () => {
    for (const job of SYSTEM_JOBS)
      expect(
        TRANSFER_POLICY.map((r) => r.authority),
        `system:${job}`,
      ).toContain(`system:${job}`);
    // A Record over the type: adding a destination class without listing it here does not compile.
    const classes: Record<DestinationClass, true> = {
      charge_deposit: true,
      merchant_wallet: true,
      charge_payee: true,
      original_payer: true,
      claim_address: true,
      owner_approved: true,
      item_contract: true,
      swap_router: true,
      sponsored_sender: true,
      any_address: true,
      self: true,
      recovery_address: true,
    };
    for (const destination of Object.keys(classes))
      expect(
        TRANSFER_POLICY.map((r) => r.destination),
        destination,
      ).toContain(destination);
  });

  it('every call of the gate under lib/ passes an authorization whose (purpose, authority, destination) is a row; every row has a caller', () => {
    const { sites, problems } = gateCallSites();
    expect(problems).toEqual([]);
    // The callers known when this was written: a call site that disappears without its row going is noticed too.
    const files = new Set(sites.map((s) => s.where.split(':')[0]));
    for (const file of [
      'lib/wallets/send-from-wallet.ts',
      'lib/refunds/create-refund.ts',
      'lib/onramp/pay-charge-from-order.ts',
      'lib/payments/pay-from-balance.ts',
      'lib/payments/sweep-charges.ts',
      'lib/contracts/start-fulfilments.ts',
      'lib/swap/record-swap.ts',
      'lib/merchants/withdraw.ts',
      'lib/transactions/reconcile-transfers.ts',
      'lib/transactions/record-transfer.ts',
    ])
      expect(files, `no gate call found in ${file}`).toContain(file);

    const used = new Set<string>();
    const missing: string[] = [];
    for (const site of sites) {
      for (const purpose of site.purposes) {
        for (const { authority, destination } of site.combinations) {
          const key = `${purpose} ${authority}→${destination}`;
          const row = TRANSFER_POLICY.find((r) => r.purpose === purpose && r.authority === authority && r.destination === destination);
          if (row) used.add(key);
          else missing.push(`${site.where}: ${key} has no row in TRANSFER_POLICY`);
        }
      }
    }
    expect(missing).toEqual([]);
    const waiting = new Set(AWAITING_CALLERS.map((r) => `${r.purpose} ${r.authority}→${r.destination}`));
    const unused = TRANSFER_POLICY.map((r) => `${r.purpose} ${r.authority}→${r.destination}`).filter(
      (k) => !used.has(k) && !waiting.has(k),
    );
    expect(unused, 'rows no caller uses: remove them, or list them in AWAITING_CALLERS with the reason').toEqual([]);
  }, 180_000);

  it('decides by the table alone: a row allows, no row refuses (a wallet send by an API key, a refund to any address)', () => {
    expect(
      decideTransfer('refund', {
        authority: { kind: 'api_key', apiKeyId: 'key_x', merchantId: 'mer_x' },
        destination: { class: 'original_payer' },
      }),
    ).toBe('allow');
    expect(
      decideTransfer('refund', {
        authority: { kind: 'api_key', apiKeyId: 'key_x', merchantId: 'mer_x' },
        destination: { class: 'any_address' },
      }),
    ).toBe('refuse');
    expect(
      decideTransfer('refund', {
        authority: { kind: 'api_key', apiKeyId: 'key_x', merchantId: 'mer_x' },
        destination: { class: 'owner_approved', address: '0x' },
      }),
    ).toBe('refuse');
    expect(
      decideTransfer('wallet_send', {
        authority: { kind: 'api_key', apiKeyId: 'key_x', merchantId: 'mer_x' },
        destination: { class: 'any_address' },
      }),
    ).toBe('refuse');
    expect(
      decideTransfer('withdrawal', {
        authority: { kind: 'member', userId: 'usr_x', merchantId: 'mer_x' },
        destination: { class: 'owner_approved', address: '0x' },
      }),
    ).toBe('refuse');
    expect(decideTransfer('fulfilment', { authority: { kind: 'system', job: 'sweep' }, destination: { class: 'item_contract' } })).toBe(
      'refuse',
    );
  });

  it('the token-moving selectors are the real ones (approve, transfer, transferFrom, setApprovalForAll, permit)', () => {
    for (const selector of [
      '0x095ea7b3',
      '0xa9059cbb',
      '0x23b872dd',
      '0xa22cb465',
      '0xd505accf',
      '0x8fcbaf0c',
      '0x42842e0e',
      '0xb88d4fde',
      '0xf242432a',
      '0x2eb2c2d6',
      '0x39509351',
    ])
      expect(TOKEN_MOVING_SELECTORS.has(selector as `0x${string}`), selector).toBe(true);
    // mint(address,uint256) is what an item contract is for.
    expect(TOKEN_MOVING_SELECTORS.has('0x40c10f19')).toBe(false);
  });
});

// ---------------------------------------------------------------------------------------------------------
// (b) The gate on real PostgreSQL and the local Polygon node
// ---------------------------------------------------------------------------------------------------------

const CHAIN = 'POLYGON' as const;
const USDC = CHAINS[CHAIN].tokens.find((t) => t.symbol === 'USDC')!;
const PIN = '284017';
const client = () => createPublicClient({ transport: http(rpcUrl(CHAIN)!) });
const stranger = () => privateKeyToAccount(generatePrivateKey()).address;

let merchant: TestMerchant;
let ownerId: string;
let adminId: string;
let merchantWallet: Address;
/** A live USDC charge of the merchant (unpaid): what fulfilment and sweep attempts name. */
let chargeId: string;

beforeAll(async () => {
  merchant = await newMerchant({ verified: true });
  ownerId = await newUser();
  adminId = await newUser();
  await getDb()
    .insert(merchantMembers)
    .values([
      { merchantId: merchant.id, userId: ownerId, role: 'owner' },
      { merchantId: merchant.id, userId: adminId, role: 'admin' },
    ]);
  merchantWallet = getAddress((await ensureMerchantWallets(getDb(), merchant.id)).find((w) => w.family === 'evm')!.address);
  await fundLocalWallet({ chain: CHAIN, url: rpcUrl(CHAIN)!, address: merchantWallet });
  chargeId = await createCharge();
});

async function createCharge(amount = '1'): Promise<string> {
  const { chargeId } = await createTestCharge({
    apiKey: merchant.liveKey!,
    body: { chargeData: { symbol: 'USDC', chain: CHAIN, tokenAddress: USDC.address, amount } },
  });
  return chargeId;
}

async function signerOf(address: Address) {
  const [wallet] = await getDb().select().from(wallets).where(eq(wallets.address, address));
  return accountFromKey(openWalletKey(wallet!));
}

const transfersFrom = (address: Address) => getDb().select().from(outboundTransfers).where(eq(outboundTransfers.fromAddress, address));

class RolledBack extends Error {}

/**
 * Records through the engine in a transaction that is then rolled back: an allowed transfer is signed and
 * its row returned, and nothing stays (no nonce taken on the shared node's records).
 */
async function attempt(input: {
  from: Address;
  purpose: TransferPurpose;
  authorization: TransferAuthorization;
  recipient?: Address;
  amount?: bigint;
  call?: TransferCall;
  chargeId?: string;
}): Promise<RecordedTransfer> {
  const prepared = await prepareTransfer({
    chain: CHAIN,
    from: input.from,
    spend: input.call
      ? { token: nativeToken(CHAINS[CHAIN]), amount: 0n, recipient: input.call.to }
      : { token: USDC, amount: input.amount ?? 1_000_000n, recipient: input.recipient ?? stranger() },
    ...(input.call ? { call: input.call, gas: 100_000n } : {}),
    gasSponsored: false,
  });
  const signer = await signerOf(input.from);
  let recorded: RecordedTransfer | undefined;
  await getDb()
    .transaction(async (tx: DbOrTx) => {
      recorded = await recordTransfer(tx, {
        prepared,
        signer,
        purpose: input.purpose,
        authorization: input.authorization,
        chargeId: input.chargeId ?? null,
      });
      throw new RolledBack();
    })
    .catch((error: unknown) => {
      if (!(error instanceof RolledBack)) throw error;
    });
  return recorded!;
}

/** The gate refuses with 403 transfer_not_authorized, and the sender has no new transfer row. */
async function expectRefused(run: () => Promise<unknown>, from: Address, message?: RegExp): Promise<void> {
  const before = (await transfersFrom(from)).length;
  await expect(run()).rejects.toMatchObject({
    code: 'transfer_not_authorized',
    ...(message ? { message: expect.stringMatching(message) } : {}),
  });
  expect(await transfersFrom(from)).toHaveLength(before);
}

/** A signed-up user with a PIN and a funded service wallet. */
async function consumer(): Promise<{ userId: string; address: Address }> {
  const email = uniqueEmail('gate');
  const user = await getDb().transaction((tx) => createUser(tx, { email, emailVerified: true, method: 'email', subject: email }));
  await setPin({ userId: user.id, pin: PIN, confirm: PIN });
  const address = getAddress((await listWallets(user.id)).find((w) => w.family === 'evm')!.address);
  await fundLocalWallet({ chain: CHAIN, url: rpcUrl(CHAIN)!, address });
  return { userId: user.id, address };
}

const owner = () => ({ kind: 'owner_step_up', userId: ownerId, merchantId: merchant.id }) as const;

describe('the gate on PostgreSQL and anvil', () => {
  it('a refund by API key to an address that never paid is refused (403, nothing signed or recorded); back to the payer it is sent', async () => {
    const { userId: payerId, address: payer } = await consumer();
    const paid = await createCharge('2');
    const { txHash } = await payFromBalance({ userId: payerId, chargeId: paid, pin: PIN });
    await client().waitForTransactionReceipt({ hash: txHash as Hex });
    for (let i = 0; i < 30; i++) {
      await pollChain(CHAIN);
      const [row] = await getDb().select({ status: charges.status }).from(charges).where(eq(charges.id, paid));
      if (row!.status === 'succeeded') break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const refundsOf = () =>
      getDb()
        .select()
        .from(outboundTransfers)
        .where(and(eq(outboundTransfers.chargeId, paid), eq(outboundTransfers.purpose, 'refund')));

    const thief = stranger();
    // The refunds domain says no first (lib/refunds: refund_destination_not_payer) ...
    const refused = await callRoute(refundRoute, { apiKey: merchant.liveKey!, params: { chargeId: paid }, body: { toAddress: thief } });
    expect(refused.status).toBe(403);
    expect(refused.json.error).toMatchObject({ code: 'refund_destination_not_payer' });
    expect(await refundsOf()).toHaveLength(0);
    expect(await getDb().select().from(refunds).where(eq(refunds.chargeId, paid))).toHaveLength(0);

    // ... and the engine's gate refuses the same movement if a caller skipped that check: a key's or a
    // member's refund to an address that never paid this charge is never signed.
    for (const authority of [
      { kind: 'api_key', apiKeyId: 'key_any', merchantId: merchant.id },
      { kind: 'member', userId: adminId, merchantId: merchant.id },
    ] as const) {
      await expectRefused(
        () =>
          attempt({
            from: merchantWallet,
            purpose: 'refund',
            authorization: { authority, destination: { class: 'original_payer' } },
            recipient: thief,
            chargeId: paid,
          }),
        merchantWallet,
        /never paid this charge/,
      );
    }
    expect(await refundsOf()).toHaveLength(0);

    const toPayer = await callRoute(refundRoute, { apiKey: merchant.liveKey!, params: { chargeId: paid }, body: { amount: '0.5' } });
    expect(toPayer.status, JSON.stringify(toPayer.json.error)).toBe(200);
    expect(toPayer.json.data.destination).toBe(payer);
    const [transfer] = await refundsOf();
    expect(transfer!.toAddress).toBe(payer);
    expect(transfer!.authority).toMatch(/^api_key:key_.+@/);
  }, 60_000);

  it('a withdrawal needs an owner: an admin’s step-up or a member authority is refused; the owner’s is signed, to the approved address only', async () => {
    const to = stranger();
    await expectRefused(
      () =>
        attempt({
          from: merchantWallet,
          purpose: 'withdrawal',
          recipient: to,
          authorization: {
            authority: { kind: 'owner_step_up', userId: adminId, merchantId: merchant.id },
            destination: { class: 'owner_approved', address: to },
          },
        }),
      merchantWallet,
      /owner/,
    );
    await expectRefused(
      () =>
        attempt({
          from: merchantWallet,
          purpose: 'withdrawal',
          recipient: to,
          authorization: {
            authority: { kind: 'member', userId: adminId, merchantId: merchant.id },
            destination: { class: 'owner_approved', address: to },
          },
        }),
      merchantWallet,
    );
    // The owner of another merchant cannot approve this one's wallet.
    const other = await newMerchant();
    const otherOwner = await newUser();
    await getDb().insert(merchantMembers).values({ merchantId: other.id, userId: otherOwner, role: 'owner' });
    await expectRefused(
      () =>
        attempt({
          from: merchantWallet,
          purpose: 'withdrawal',
          recipient: to,
          authorization: {
            authority: { kind: 'owner_step_up', userId: otherOwner, merchantId: other.id },
            destination: { class: 'owner_approved', address: to },
          },
        }),
      merchantWallet,
      /own wallets/,
    );
    // The recipient must be the address the owner approved.
    await expectRefused(
      () =>
        attempt({
          from: merchantWallet,
          purpose: 'withdrawal',
          recipient: stranger(),
          authorization: { authority: owner(), destination: { class: 'owner_approved', address: to } },
        }),
      merchantWallet,
      /approved/,
    );
    const allowed = await attempt({
      from: merchantWallet,
      purpose: 'withdrawal',
      recipient: to,
      authorization: { authority: owner(), destination: { class: 'owner_approved', address: to } },
    });
    expect(allowed.transfer).toMatchObject({ toAddress: to, purpose: 'withdrawal', authority: `owner_step_up:${ownerId}@${merchant.id}` });
  });

  it('a fulfilment calls a registered item contract only, never approve or transfer (even on a registered token); a mint is signed', async () => {
    const item = stranger();
    await getDb()
      .insert(merchantContracts)
      .values(
        [USDC.address, item].map((address) => ({
          id: newId('merchantContract'),
          merchantId: merchant.id,
          mode: 'live' as const,
          chain: CHAIN,
          address: getAddress(address),
          kind: 'other' as const,
          functions: [],
          createdBy: 'test',
        })),
      );
    const fulfil = { authority: { kind: 'system', job: 'fulfilment' }, destination: { class: 'item_contract' } } as const;
    const attacker = stranger();
    const approve = encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [attacker, maxUint256] });
    const transfer = encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [attacker, 1n] });
    const mint = encodeFunctionData({
      abi: parseAbi(['function mint(address to, uint256 id)']),
      functionName: 'mint',
      args: [attacker, 7n],
    });
    for (const data of [approve, transfer]) {
      await expectRefused(
        () =>
          attempt({
            from: merchantWallet,
            purpose: 'fulfilment',
            chargeId,
            authorization: fulfil,
            call: { to: USDC.address as Address, value: 0n, data },
          }),
        merchantWallet,
        /moves or approves tokens/,
      );
    }
    await expectRefused(
      () =>
        attempt({
          from: merchantWallet,
          purpose: 'fulfilment',
          chargeId,
          authorization: fulfil,
          call: { to: stranger(), value: 0n, data: mint },
        }),
      merchantWallet,
      /registered/,
    );
    // Another merchant's charge cannot borrow this merchant's registration.
    const foreign = await newMerchant();
    const foreignCharge = await createTestCharge({
      apiKey: foreign.liveKey!,
      body: { chargeData: { symbol: 'USDC', chain: CHAIN, tokenAddress: USDC.address, amount: '1' } },
    });
    await expectRefused(
      () =>
        attempt({
          from: merchantWallet,
          purpose: 'fulfilment',
          chargeId: foreignCharge.chargeId,
          authorization: fulfil,
          call: { to: getAddress(item), value: 0n, data: mint },
        }),
      merchantWallet,
    );
    const allowed = await attempt({
      from: merchantWallet,
      purpose: 'fulfilment',
      chargeId,
      authorization: fulfil,
      call: { to: getAddress(item), value: 0n, data: mint },
    });
    expect(allowed.transfer).toMatchObject({ callTo: getAddress(item), authority: 'system:fulfilment' });
  });

  it('a wallet send is the user’s own PIN on their own wallet: an API key, or another user’s PIN, is refused', async () => {
    const { userId, address } = await consumer();
    await expectRefused(
      () =>
        attempt({
          from: address,
          purpose: 'wallet_send',
          authorization: {
            authority: { kind: 'api_key', apiKeyId: 'key_x', merchantId: merchant.id },
            destination: { class: 'any_address' },
          },
        }),
      address,
    );
    const someoneElse = await newUser();
    await expectRefused(
      () =>
        attempt({
          from: address,
          purpose: 'wallet_send',
          authorization: { authority: { kind: 'payer_pin', userId: someoneElse }, destination: { class: 'any_address' } },
        }),
      address,
      /own wallet/,
    );
    const allowed = await attempt({
      from: address,
      purpose: 'wallet_send',
      authorization: { authority: { kind: 'payer_pin', userId }, destination: { class: 'any_address' } },
    });
    expect(allowed.transfer.authority).toBe(`payer_pin:${userId}`);
  });

  it('a combination without a row is refused: a sweep by an API key, a refund anywhere by a member', async () => {
    await expectRefused(
      () =>
        attempt({
          from: merchantWallet,
          purpose: 'sweep',
          chargeId,
          authorization: {
            authority: { kind: 'api_key', apiKeyId: 'key_x', merchantId: merchant.id },
            destination: { class: 'merchant_wallet' },
          },
        }),
      merchantWallet,
      /may not go/,
    );
    await expectRefused(
      () =>
        attempt({
          from: merchantWallet,
          purpose: 'refund',
          chargeId,
          authorization: { authority: { kind: 'member', userId: adminId, merchantId: merchant.id }, destination: { class: 'any_address' } },
        }),
      merchantWallet,
      /may not go/,
    );
  });

  it('a transfer that names the payer but whose call pays someone else is refused', async () => {
    const { userId, address } = await consumer();
    const prepared = await prepareTransfer({
      chain: CHAIN,
      from: address,
      spend: { token: USDC, amount: 1n, recipient: stranger() },
      gasSponsored: false,
    });
    const disguised = {
      ...prepared,
      call: { ...prepared.call, data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [stranger(), 1n] }) },
    };
    await expectRefused(
      () =>
        getDb().transaction(async (tx) =>
          recordTransfer(tx, {
            prepared: disguised,
            signer: await signerOf(address),
            purpose: 'wallet_send',
            authorization: { authority: { kind: 'payer_pin', userId }, destination: { class: 'any_address' } },
          }),
        ),
      address,
      /does not move the value/,
    );
  });
});
