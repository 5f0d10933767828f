/**
 * A real HTTP server on 127.0.0.1 (node:http) that answers each request with the next scripted
 * reply, for testing the SDKs' timeouts, retries and headers over a real socket.
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** What to answer one request with; `'hang'` never answers. */
type Reply = { status: number; body?: unknown; headers?: Record<string, string> } | 'hang';

export interface LocalServer {
  url: string;
  requests: SeenRequest[];
  /** Replies for the next requests, in order; past the end every request gets the last one. */
  script(...replies: Reply[]): void;
  close(): Promise<void>;
}

export const envelope = (data: unknown) => ({ data, error: null });
export const failure = (code: string, message = 'x', param?: string) => ({
  data: null,
  error: { code, message, ...(param ? { param } : {}) },
});

export async function startLocalServer(): Promise<LocalServer> {
  const requests: SeenRequest[] = [];
  let replies: Reply[] = [];
  const hanging = new Set<ServerResponse>();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      requests.push({ method: request.method!, url: request.url!, headers: request.headers, body: Buffer.concat(chunks).toString() });
      const reply = replies.length > 1 ? replies.shift()! : replies[0];
      if (!reply || reply === 'hang') {
        hanging.add(response);
        return;
      }
      response.writeHead(reply.status, { 'content-type': 'application/json', 'x-request-id': `req_${requests.length}`, ...reply.headers });
      response.end(reply.body === undefined ? '' : JSON.stringify(reply.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    script: (...next) => {
      replies = next;
      requests.length = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
