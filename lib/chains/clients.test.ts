import { sql } from 'drizzle-orm';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { getDb } from '@/lib/db/client';
import { RpcInsideTransactionError } from '@/lib/db/transaction-scope';
import { publicClientFor } from './clients';

const client = () => publicClientFor('POLYGON')!;

describe('no chain request while a database transaction is open', () => {
  afterEach(() => vi.unstubAllEnvs());

  it('a request inside a transaction (or a savepoint) fails and the transaction rolls back; outside it works', async () => {
    await getDb().execute(sql`create table if not exists rpc_guard_probe (n int)`);
    await expect(
      getDb().transaction(async (tx) => {
        await tx.execute(sql`insert into rpc_guard_probe values (1)`);
        await client().getBlockNumber({ cacheTime: 0 });
      }),
    ).rejects.toBeInstanceOf(RpcInsideTransactionError);
    await expect(getDb().transaction((tx) => tx.transaction(() => client().getChainId()))).rejects.toThrow(
      /RPC eth_chainId was called while a database transaction is open/,
    );
    expect(await getDb().execute(sql`select * from rpc_guard_probe`)).toHaveLength(0);

    // Read first, write after: the pattern the scanner, the Solana watcher and the swaps follow.
    const head = await client().getBlockNumber({ cacheTime: 0 });
    await getDb().transaction((tx) => tx.execute(sql`insert into rpc_guard_probe values (${Number(head)})`));
    expect(await getDb().execute(sql`select * from rpc_guard_probe`)).toHaveLength(1);
    await getDb().execute(sql`drop table rpc_guard_probe`);
  });

  it('in production a missed case is reported (once per method), not turned into a failed payment', async () => {
    vi.stubEnv('NODE_ENV', 'production');
    const logged = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const head = await getDb().transaction(async () => {
      await client().getBlockNumber({ cacheTime: 0 });
      return client().getBlockNumber({ cacheTime: 0 });
    });
    expect(head).toBeGreaterThan(0n);
    const lines = logged.mock.calls.map((call) => String(call[0])).filter((line) => line.includes('inside a database transaction'));
    logged.mockRestore();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('RPC eth_blockNumber');
  });
});
