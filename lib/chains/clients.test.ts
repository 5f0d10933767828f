import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { getDb } from '@/lib/db/client';
import { RpcInsideTransactionError } from '@/lib/db/transaction-scope';
import { parseEnv, resetEnvCache } from '@/lib/env';
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

describe('RPC failover (RPC_URL_<CHAIN>=first,second,…)', () => {
  const original = process.env.RPC_URL_POLYGON;
  let failing: Server;
  let failingHits = 0;

  beforeAll(async () => {
    failing = createServer((_request, response) => {
      failingHits++;
      response.writeHead(500, { 'content-type': 'text/plain' }).end('upstream down');
    });
    await new Promise<void>((resolve) => failing.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    process.env.RPC_URL_POLYGON = original;
    resetEnvCache();
    await new Promise((resolve) => failing.close(resolve));
  });

  it('reads and sends go to the next URL when the first is down (closed port) and the second answers 500', async () => {
    const closedPort = await freePort();
    const failingUrl = `http://127.0.0.1:${(failing.address() as AddressInfo).port}`;
    process.env.RPC_URL_POLYGON = ` http://127.0.0.1:${closedPort} , ${failingUrl},${original}`;
    resetEnvCache();
    const polygon = publicClientFor('POLYGON')!;

    expect(await polygon.getBlockNumber({ cacheTime: 0 })).toBeGreaterThan(0n);
    expect(failingHits).toBeGreaterThan(0);

    const sender = privateKeyToAccount(generatePrivateKey());
    await polygon.request({ method: 'anvil_setBalance' as never, params: [sender.address, '0xde0b6b3a7640000'] as never });
    const serializedTransaction = await sender.signTransaction({
      chainId: await polygon.getChainId(),
      to: sender.address,
      value: 1n,
      nonce: 0,
      gas: 21_000n,
      maxFeePerGas: (await polygon.estimateFeesPerGas()).maxFeePerGas * 2n,
      maxPriorityFeePerGas: 1n,
    });
    const hash = await polygon.sendRawTransaction({ serializedTransaction });
    expect((await polygon.waitForTransactionReceipt({ hash, pollingInterval: 50 })).status).toBe('success');
  });

  it('a malformed list is refused at start with the variable named', () => {
    process.env.RPC_URL_POLYGON = `${original},not a url`;
    expect(() => parseEnv(process.env)).toThrow(/RPC_URL_POLYGON.*several URLs separated by commas/s);
  });
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
