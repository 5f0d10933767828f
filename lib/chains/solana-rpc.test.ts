import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { resetEnvCache } from '@/lib/env';
import { solanaRpcFor } from './solana-rpc';

// A Solana RPC stand-in: answers getSlot, or 503 when told to be down.
const servers: Server[] = [];
const hits = { down: 0, up: 0 };
const original = process.env.RPC_URL_SOLANA_DEVNET;

async function serve(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

let downUrl: string;
let upUrl: string;

beforeAll(async () => {
  downUrl = await serve((_request, response) => {
    hits.down++;
    response.writeHead(503).end('maintenance');
  });
  upUrl = await serve((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      hits.up++;
      const { id } = JSON.parse(body) as { id: unknown };
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id, result: 4242 }));
    });
  });
});

afterAll(async () => {
  if (original === undefined) delete process.env.RPC_URL_SOLANA_DEVNET;
  else process.env.RPC_URL_SOLANA_DEVNET = original;
  resetEnvCache();
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
});

it('Solana RPC URLs fail over in order: a cluster endpoint that is down is skipped, the next one answers', async () => {
  process.env.RPC_URL_SOLANA_DEVNET = `${downUrl},${upUrl}`;
  resetEnvCache();
  expect(await solanaRpcFor('SOLANA_DEVNET')!.getSlot().send()).toBe(4242n);
  expect(hits).toEqual({ down: 1, up: 1 });
});
