import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { CHAINS } from '@/lib/chains/registry';
import { callRoute, createTestCharge, newMerchant, usdcCharge } from '@/test/fixtures';
import { POST as createChargeRoute } from '@/app/api/createCharge/route';
import { gasTankAccountFromSeed } from '@/lib/transactions/gas-tank-key';
import { TEST_SECRETS } from '@/test/test-secrets';
import { pollChain } from '@/lib/payments/poll-chain';
import { pollIncomingTransfers } from '@/lib/wallets/poll-incoming-transfers';

const run = promisify(execFile);

/** Runs the admin CLI exactly as support staff do, against the test database (DATABASE_URL). */
async function admin(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run('node_modules/.bin/tsx', ['--conditions=react-server', 'scripts/admin.mts', ...args], {
      env: { ...process.env },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failure = error as { code: number; stdout: string; stderr: string };
    return { code: failure.code, stdout: failure.stdout, stderr: failure.stderr };
  }
}

// Each command is a fresh tsx process (about 5–10 s on a loaded 2-core machine): these tests run several.
describe('admin CLI', { timeout: 120_000 }, () => {
  it('creates a merchant, verifies it, issues and revokes keys', async () => {
    const email = `cli-${Date.now()}@studio.example`;
    const created = await admin('merchant', 'create', '--email', email, '--name', 'CLI Studio', '--json');
    expect(created.code).toBe(0);
    const merchant = JSON.parse(created.stdout);
    expect(merchant.merchant).toMatchObject({ name: 'CLI Studio', email, verified: false });
    expect(merchant.testKey.key).toMatch(/^cp_test_/);
    expect(merchant.liveKey).toBeNull();

    // The printed test key works against the API.
    const charge = await callRoute(createChargeRoute, {
      apiKey: merchant.testKey.key,
      body: {
        chargeData: { symbol: 'POL', chain: 'POLYGON', tokenAddress: '0x0000000000000000000000000000000000000000', amount: 1 },
        isTest: true,
      },
    });
    expect(charge.status).toBe(200);

    const refused = await admin('key', 'create', merchant.merchant.id, '--mode', 'live', '--json');
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stderr).error.code).toBe('verification_required');

    const verified = await admin('merchant', 'verify', merchant.merchant.id, '--json');
    expect(JSON.parse(verified.stdout).merchant.verified).toBe(true);

    const liveKey = JSON.parse((await admin('key', 'create', merchant.merchant.id, '--mode', 'live', '--json')).stdout).key;
    expect(liveKey.key).toMatch(/^cp_live_/);
    expect((await callRoute(createChargeRoute, { apiKey: liveKey.key, body: usdcCharge() })).status).toBe(200);

    const revoked = await admin('key', 'revoke', liveKey.id, '--json');
    expect(JSON.parse(revoked.stdout).key.revoked).toBe(true);
    expect((await callRoute(createChargeRoute, { apiKey: liveKey.key, body: usdcCharge() })).status).toBe(401);

    const listed = JSON.parse((await admin('merchant', 'list', '--json')).stdout);
    expect(listed.merchants).toContainEqual(expect.objectContaining({ id: merchant.merchant.id, verified: true, activeKeys: 1 }));
  });

  it('creates a verified merchant with both keys in one step, and explains bad usage', async () => {
    const created = JSON.parse(
      (await admin('merchant', 'create', '--email', `v-${Date.now()}@x.example`, '--name', 'V', '--verified', '--json')).stdout,
    );
    expect(created.liveKey.key).toMatch(/^cp_live_/);
    const bad = await admin('merchant', 'create', '--name', 'No email');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--email');
    const invalid = await admin('merchant', 'create', '--email', 'not-an-email', '--name', 'X', '--json');
    expect(invalid.code).toBe(1);
    expect(JSON.parse(invalid.stderr).error.code).toBe('invalid_request');
  });
});

describe('admin CLI: wallet master key rotation', () => {
  it('reports the current master key and what it re-sealed', async () => {
    const result = await admin('wallets', 'rotate-master-key', '--json');
    const parsed = JSON.parse(result.stdout);
    expect(parsed.masterKeyId).toMatch(/^mk_[0-9a-f]{16}$/);
    expect(typeof parsed.resealed).toBe('number');
    expect(Array.isArray(parsed.failed)).toBe(true);
  });

  it('reports the gas tank: its address (derived from DEPOSIT_HD_SEED), balance and gas spent per chain', async () => {
    const result = await admin('gas-tank', 'status', '--json');
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.address).toBe(gasTankAccountFromSeed(TEST_SECRETS.DEPOSIT_HD_SEED).address);
    const polygon = report.chains.find((c: { chain: string }) => c.chain === 'POLYGON');
    // Funded by the test setup, as the launcher funds it on local chains.
    expect(Number(polygon.balance)).toBeGreaterThan(0);
    expect(polygon).toMatchObject({ symbol: 'POL', spent: expect.any(String), topUps: expect.any(Number) });
  });

  it('reconcile compares the ledger with a chain at one block and refuses an unknown chain', async () => {
    // Both scanners have run on the chain (the background jobs would have).
    await pollChain('POLYGON');
    await pollIncomingTransfers('POLYGON');
    const result = await admin('reconcile', '--chain', 'POLYGON', '--json');
    const [polygon] = JSON.parse(result.stdout);
    expect(polygon).toMatchObject({ chain: 'POLYGON', atBlock: expect.stringMatching(/^\d+$/) });
    expect(polygon).toMatchObject({ checked: expect.any(Number), busy: expect.any(Number), discrepancies: expect.any(Array) });
    expect(result.code).toBe(polygon.discrepancies.length ? 1 : 0);
    const unknown = await admin('reconcile', '--chain', 'ETHEREUM');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown chain: ETHEREUM/);
  });

  it('recover-deposit: a request names the deposit, token and destination; its requester cannot approve it; flags are checked', async () => {
    const merchant = await newMerchant({ verified: true });
    const { deposit } = await createTestCharge({ apiKey: merchant.liveKey, body: usdcCharge() });
    const usdt = CHAINS.POLYGON.tokens.find((t) => t.symbol === 'USDT')!.address;
    const requested = await admin(
      'recover-deposit',
      'request',
      '--chain',
      'POLYGON',
      '--deposit',
      deposit.address,
      '--token',
      usdt,
      '--amount',
      '1.5',
      '--to',
      '0x000000000000000000000000000000000000dEaD',
      '--operator',
      'alice@ops.example',
      '--reason',
      'USDT to a USDC charge',
      '--json',
    );
    expect(requested.code).toBe(0);
    const { recovery } = JSON.parse(requested.stdout);
    expect(recovery).toMatchObject({ amount: '1.5', symbol: 'USDT', status: 'requested', requestedBy: 'alice@ops.example' });

    const self = await admin('recover-deposit', 'approve', recovery.id, '--operator', 'alice@ops.example', '--json');
    expect(self.code).toBe(1);
    expect(JSON.parse(self.stderr).error).toMatchObject({ code: 'forbidden' });
    expect((await admin('recover-deposit', 'approve', recovery.id)).code).toBe(2);
  });
});
