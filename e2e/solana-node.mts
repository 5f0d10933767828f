/**
 * The e2e stack's Solana cluster (RPC_URL_SOLANA): LiteSVM — the real Solana runtime — behind JSON-RPC on
 * loopback, with the methods test/litesvm-view.ts serves. The journeys create and show Solana charges on it
 * (createCharge refuses chains nothing watches, so the production build needs a served Solana); nobody pays on
 * it. It also answers getHealth, and getTokenAccountsByOwner with none: this ledger holds no SPL token.
 */
import { createServer } from 'node:http';
import { LiteSVM } from 'litesvm';
import { LiteSvmLedger } from '@/test/litesvm-view';

const PORT = Number(process.env.SOLANA_RPC_PORT ?? 3213);
const ledger = new LiteSvmLedger(new LiteSVM());

interface JsonRpcRequest {
  id: string | number;
  method: string;
  params?: unknown[];
}

async function answer(request: JsonRpcRequest): Promise<unknown> {
  const respond = (result: unknown) => ({ jsonrpc: '2.0', id: request.id, result });
  if (request.method === 'getHealth') return respond('ok');
  if (request.method === 'getTokenAccountsByOwner') return respond({ context: { slot: 0 }, value: [] });
  return ledger.transport({ payload: { ...request, params: request.params ?? [] } });
}

createServer((req, res) => {
  let body = '';
  req.on('data', (chunk) => (body += chunk));
  req.on('end', async () => {
    if (req.method !== 'POST') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('LiteSVM JSON-RPC');
    try {
      const parsed = JSON.parse(body) as JsonRpcRequest | JsonRpcRequest[];
      const result = Array.isArray(parsed) ? await Promise.all(parsed.map(answer)) : await answer(parsed);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(result));
    } catch (error) {
      res
        .writeHead(400, { 'content-type': 'application/json' })
        .end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: String(error) } }));
    }
  });
}).listen(PORT, '127.0.0.1');

console.log(`Solana JSON-RPC (LiteSVM) on http://127.0.0.1:${PORT}`);
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(0));
