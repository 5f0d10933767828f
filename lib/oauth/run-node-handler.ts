/**
 * Runs a Node.js `(req, res)` handler — oidc-provider's Koa app — for a Fetch API request inside a
 * Next.js route handler, and turns what it wrote into a Fetch API response (ADR 0020).
 *
 * The request is a real `http.IncomingMessage` fed the already-read body; the response a real
 * `http.ServerResponse` (so every header method Koa uses is Node's own) whose `write`/`end` are
 * captured instead of going to a socket. Multiple Set-Cookie headers stay separate.
 */
import 'server-only';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';

export type NodeHandler = (req: IncomingMessage, res: ServerResponse) => unknown;

export interface NodeRequestInit {
  method: string;
  /** Path and query, e.g. `/oidc/auth?client_id=…`. */
  url: string;
  headers: Headers;
  body?: Buffer;
}

/** A request object Koa and oidc-provider accept, with the body readable once. */
export function nodeRequest(init: NodeRequestInit): IncomingMessage {
  const req = new IncomingMessage(new Socket());
  req.method = init.method;
  req.url = init.url;
  req.httpVersion = '1.1';
  req.httpVersionMajor = 1;
  req.httpVersionMinor = 1;
  const headers: Record<string, string> = {};
  const rawHeaders: string[] = [];
  init.headers.forEach((value, name) => {
    headers[name] = value;
    rawHeaders.push(name, value);
  });
  if (init.body) headers['content-length'] = String(init.body.length);
  req.headers = headers;
  req.rawHeaders = rawHeaders;
  if (init.body?.length) req.push(init.body);
  req.push(null);
  return req;
}

/** Runs the handler and resolves with its response once it has ended it. */
export function runNodeHandler(handler: NodeHandler, req: IncomingMessage): Promise<Response> {
  const res = new ServerResponse(req);
  const chunks: Buffer[] = [];
  const collect = (chunk: unknown, encoding?: unknown) => {
    if (chunk === undefined || chunk === null || typeof chunk === 'function') return;
    chunks.push(
      Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8'),
    );
  };
  return new Promise<Response>((resolve, reject) => {
    res.write = ((chunk: unknown, encoding?: unknown, callback?: unknown) => {
      collect(chunk, encoding);
      for (const fn of [encoding, callback]) if (typeof fn === 'function') (fn as () => void)();
      return true;
    }) as typeof res.write;
    res.end = ((chunk?: unknown, encoding?: unknown, callback?: unknown) => {
      collect(chunk, encoding);
      (res as { finished: boolean }).finished = true;
      resolve(toResponse(res, chunks));
      for (const fn of [chunk, encoding, callback]) if (typeof fn === 'function') (fn as () => void)();
      res.emit('finish');
      return res;
    }) as typeof res.end;
    Promise.resolve(handler(req, res)).catch(reject);
  });
}

/** The captured headers and body as a Fetch API response. */
function toResponse(res: ServerResponse, chunks: Buffer[]): Response {
  const headers = new Headers();
  for (const [name, value] of Object.entries(res.getHeaders())) {
    if (value === undefined || name === 'content-length') continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, String(item));
  }
  const status = res.statusCode;
  const hasBody = ![204, 304].includes(status) && !(status >= 100 && status < 200);
  return new Response(hasBody ? Buffer.concat(chunks) : null, { status, headers });
}
