import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callRoute, newMerchant, usdcCharge } from '@/test/fixtures';
import { POST as createChargeRoute } from '@/app/api/createCharge/route';
import { switchToPrivateDatabase } from '@/test/private-database';

const run = promisify(execFile);

async function admin(env: NodeJS.ProcessEnv, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run('node_modules/.bin/tsx', ['--conditions=react-server', 'scripts/admin.mts', ...args], { env });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failure = error as { code: number; stdout: string; stderr: string };
    return { code: failure.code, stdout: failure.stdout, stderr: failure.stderr };
  }
}

// A database of its own: the backup holds this test's rows, not the whole suite's.
beforeAll(() => switchToPrivateDatabase('backup'));

const fresh = `restore_${Date.now()}`;
const freshUrl = () => {
  const url = new URL(process.env.DATABASE_URL!);
  url.pathname = `/${fresh}`;
  return url.toString();
};

afterAll(async () => {
  const sql = postgres(process.env.DATABASE_URL!, { max: 1, onnotice: () => {} });
  await sql.unsafe(`drop database if exists ${fresh} with (force)`);
  await sql.end();
});

describe('admin backup / restore', { timeout: 180_000 }, () => {
  it('backs up a database with charges, restores it into a fresh one and finds the charges; refuses to overwrite without --force', async () => {
    const merchant = await newMerchant({ verified: true });
    const created = await callRoute(createChargeRoute, { apiKey: merchant.liveKey!, body: usdcCharge() });
    expect(created.status).toBe(200);
    const chargeId = created.json.data.chargeId as string;

    const file = path.join(mkdtempSync(path.join(tmpdir(), 'chargeport-backup-')), 'test.backup.gz');
    const backup = await admin({ ...process.env }, 'backup', file);
    expect(backup.code).toBe(0);
    expect(backup.stdout).toContain(`Backup written to ${file}`);
    expect(existsSync(file)).toBe(true);

    const sql = postgres(process.env.DATABASE_URL!, { max: 1, onnotice: () => {} });
    await sql.unsafe(`create database ${fresh}`);
    await sql.end();

    const restored = await admin({ ...process.env, DATABASE_URL: freshUrl() }, 'restore', file);
    expect(restored.stdout + restored.stderr).toContain('Restored');
    expect(restored.code).toBe(0);
    const target = postgres(freshUrl(), { max: 1, onnotice: () => {} });
    try {
      const [charge] = await target<
        { id: string; merchant_id: string; status: string }[]
      >`select id, merchant_id, status from charges where id = ${chargeId}`;
      expect(charge).toMatchObject({ id: chargeId, merchant_id: merchant.id, status: 'pending' });
      const [restoredCount] = await target<{ count: string }[]>`select count(*)::text as count from charges`;
      const source = postgres(process.env.DATABASE_URL!, { max: 1, onnotice: () => {} });
      const [sourceCount] = await source<{ count: string }[]>`select count(*)::text as count from charges`;
      await source.end();
      expect(Number(restoredCount!.count)).toBeGreaterThan(0);
      expect(Number(restoredCount!.count)).toBeLessThanOrEqual(Number(sourceCount!.count));
      // N16: the next deposit key index is past every restored one (a fresh database's sequence starts at 0).
      const [highest] = await target<{ max: number }[]>`select max(derivation_index)::int as max from deposit_addresses`;
      const [drawn] = await target<{ next: string }[]>`select nextval('deposit_derivation_index')::text as next`;
      const max = highest!.max;
      const next = drawn!.next;
      expect(max).toBeGreaterThanOrEqual(0);
      expect(Number(next)).toBeGreaterThan(max);
    } finally {
      await target.end();
    }

    // The fresh database now holds data: a second restore is refused unless forced.
    const refused = await admin({ ...process.env, DATABASE_URL: freshUrl() }, 'restore', file, '--json');
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stderr).error).toMatchObject({ code: 'restore_refused', message: expect.stringContaining('--force') });
    const forced = await admin({ ...process.env, DATABASE_URL: freshUrl() }, 'restore', file, '--force', '--json');
    expect(forced.code).toBe(0);
    expect(JSON.parse(forced.stdout).restore.rows).toBeGreaterThan(0);
  });
});
