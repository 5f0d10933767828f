/**
 * Sends one webhook request through the SSRF guard (check-webhook-url.ts holds the rules): the name is
 * resolved once, every address checked, the socket pinned to the checked addresses, redirects not
 * followed, one total timeout, and only the first bytes of the answer kept.
 */
import type { LookupAddress } from 'node:dns';
import { lookup as dnsLookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import {
  addressRefusal,
  bareHostname,
  checkWebhookUrl,
  describeTarget,
  type TargetPolicy,
  type UrlRefusalCode,
  type WebhookMode,
} from './check-webhook-url';

/** Resolves every address of a name; `dns.promises.lookup` by default, injected in tests. */
export type HostLookup = (hostname: string, options: { all: true }) => Promise<LookupAddress[]>;

export type AddressCheck = { ok: true; addresses: LookupAddress[] } | { ok: false; code: 'refused_address' | 'dns_error'; message: string };

type DeliveryFailureCode =
  | UrlRefusalCode
  | 'dns_error'
  | 'timeout'
  | 'network_error'
  /** The endpoint answered 3xx; redirects are not followed, so the event was not delivered. */
  | 'redirect_not_followed'
  /** The endpoint answered, with a status other than 2xx or 3xx. */
  | 'http_error';

export type DeliveryResult =
  | { ok: true; status: number; bodySnippet: string; durationMs: number; address: string }
  | {
      ok: false;
      code: DeliveryFailureCode;
      message: string;
      durationMs: number;
      /** Present when the endpoint answered (redirect_not_followed, http_error). */
      status?: number;
      bodySnippet?: string;
      /** The address connected to, when a connection was made. */
      address?: string;
    };

export interface DeliverWebhookRequestInput {
  url: string;
  mode: WebhookMode;
  /** The exact bytes that were signed. */
  body: string;
  /** The signature headers (`webhook-id`, …); Host and Content-Length are always set here. */
  headers: Record<string, string>;
  /** Budget for the whole request, DNS to last byte read. Default 10 s. */
  timeoutMs?: number;
  /** Bytes of the answer kept for the delivery log; the rest is not read. Default 4 KiB. */
  maxBodyBytes?: number;
  lookup?: HostLookup;
  /** PEM certificates trusted instead of the system roots (tests with a local HTTPS receiver). */
  ca?: string;
  /** See TargetPolicy; default true. */
  allowLoopback?: boolean;
  /** A keep-alive agent of this endpoint's own (default: a fresh connection per request). */
  agent?: http.Agent;
}

export const DEFAULT_DELIVERY_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_BODY_BYTES = 4096;
const USER_AGENT = 'Chargeport-Webhooks/1.0';

const defaultLookup: HostLookup = (hostname, options) => dnsLookup(hostname, options);

/**
 * Resolves `hostname` once and checks every address; all of them must be allowed, since a
 * connection could be made to any. An IP literal is checked as it is, without DNS.
 */
export async function resolveSafeAddress(
  hostname: string,
  mode: WebhookMode,
  lookup: HostLookup = defaultLookup,
  policy: TargetPolicy = {},
): Promise<AddressCheck> {
  const host = hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: LookupAddress[];
  const family = net.isIP(host);
  if (family !== 0) {
    addresses = [{ address: host, family }];
  } else {
    try {
      addresses = await lookup(host, { all: true });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'lookup failed';
      return { ok: false, code: 'dns_error', message: `Could not resolve ${host} (${code}).` };
    }
    if (addresses.length === 0) return { ok: false, code: 'dns_error', message: `${host} has no addresses.` };
  }
  for (const { address } of addresses) {
    const refusal = addressRefusal(address, mode, policy);
    if (refusal) return { ok: false, code: 'refused_address', message: `${host} resolves to ${describeTarget(refusal, mode)}.` };
  }
  return { ok: true, addresses: addresses.map(({ address, family }) => ({ address, family })) };
}

/**
 * A `lookup` for net/http that answers `hostname` with the already checked addresses and never asks
 * DNS again: the socket can only connect to an address that passed `resolveSafeAddress`.
 */
export function pinnedLookup(hostname: string, addresses: readonly LookupAddress[]): net.LookupFunction {
  return (name, options, callback) => {
    const wanted = options.family === 4 || options.family === 6 ? addresses.filter((a) => a.family === options.family) : addresses;
    const first = wanted[0];
    if (name !== hostname || !first) {
      const error: NodeJS.ErrnoException = new Error(`No checked address for ${name}`);
      error.code = 'ENOTFOUND';
      callback(error, '');
      return;
    }
    if (options.all)
      callback(
        null,
        wanted.map(({ address, family }) => ({ address, family })),
      );
    else callback(null, first.address, first.family);
  };
}

/**
 * POSTs one webhook to `url` under the rules above. Never throws: every outcome is a
 * DeliveryResult, `ok` only for a 2xx answer.
 */
export async function deliverWebhookRequest(input: DeliverWebhookRequestInput): Promise<DeliveryResult> {
  const started = performance.now();
  const durationMs = () => Math.round(performance.now() - started);
  const timeoutMs = input.timeoutMs ?? DEFAULT_DELIVERY_TIMEOUT_MS;
  const timedOut = { ok: false as const, code: 'timeout' as const, message: `No answer within ${timeoutMs} ms.` };

  const policy: TargetPolicy = { allowLoopback: input.allowLoopback };
  const checked = checkWebhookUrl(input.url, input.mode, policy);
  if (!checked.ok) return { ...checked, durationMs: durationMs() };
  const url = checked.url;

  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    // dns.lookup cannot be cancelled; stop waiting for it when the budget is spent.
    const resolved = await Promise.race([
      resolveSafeAddress(bareHostname(url), input.mode, input.lookup, policy),
      new Promise<'aborted'>((resolve) => controller.signal.addEventListener('abort', () => resolve('aborted'), { once: true })),
    ]);
    if (resolved === 'aborted') return { ...timedOut, durationMs: durationMs() };
    if (!resolved.ok) return { ...resolved, durationMs: durationMs() };
    const outcome = await sendPinned({ url, addresses: resolved.addresses, input, signal: controller.signal });
    if (outcome.kind === 'failed') {
      return controller.signal.aborted
        ? { ...timedOut, durationMs: durationMs() }
        : { ok: false, code: 'network_error', message: outcome.message, durationMs: durationMs() };
    }
    const { status, bodySnippet, address } = outcome;
    if (status >= 200 && status < 300) return { ok: true, status, bodySnippet, durationMs: durationMs(), address };
    const isRedirect = status >= 300 && status < 400;
    return {
      ok: false,
      code: isRedirect ? 'redirect_not_followed' : 'http_error',
      message: isRedirect
        ? `The endpoint answered ${status} (redirect${outcome.location ? ` to ${outcome.location.slice(0, 200)}` : ''}); redirects are not followed, answer 2xx at the configured URL.`
        : `The endpoint answered ${status}.`,
      status,
      bodySnippet,
      durationMs: durationMs(),
      address,
    };
  } finally {
    clearTimeout(timer);
  }
}

type SendOutcome =
  { kind: 'answered'; status: number; bodySnippet: string; address: string; location?: string } | { kind: 'failed'; message: string };

function sendPinned({
  url,
  addresses,
  input,
  signal,
}: {
  url: URL;
  addresses: LookupAddress[];
  input: DeliverWebhookRequestInput;
  signal: AbortSignal;
}): Promise<SendOutcome> {
  const maxBodyBytes = input.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const host = bareHostname(url);
  const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': USER_AGENT };
  for (const [name, value] of Object.entries(input.headers)) {
    const lower = name.toLowerCase();
    if (lower !== 'host' && lower !== 'content-length') headers[lower] = value;
  }
  headers['content-length'] = String(Buffer.byteLength(input.body));
  const options: https.RequestOptions = {
    protocol: url.protocol,
    // The name, not the address: Host header, TLS SNI and certificate check all use it; the pinned
    // lookup decides where the socket goes. (An IP literal needs no lookup at all.)
    host,
    port: url.port === '' ? undefined : Number(url.port),
    path: `${url.pathname}${url.search}`,
    method: 'POST',
    headers,
    // The endpoint's own pool, or a fresh connection: never a pool shared with other URLs.
    agent: input.agent ?? false,
    lookup: pinnedLookup(host, addresses),
    signal,
    ...(input.ca === undefined ? {} : { ca: input.ca }),
  };

  return new Promise<SendOutcome>((resolve) => {
    let settled = false;
    const settle = (outcome: SendOutcome) => {
      if (settled) return;
      settled = true;
      resolve(outcome);
    };
    let request: http.ClientRequest;
    try {
      request = (url.protocol === 'https:' ? https : http).request(options, (response) => readAnswer(response, maxBodyBytes, settle));
    } catch (error) {
      // e.g. a header value with a line break (ERR_INVALID_CHAR): nothing was sent.
      settle({
        kind: 'failed',
        message: `Could not build the request: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}.`,
      });
      return;
    }
    request.on('error', (error: NodeJS.ErrnoException) => {
      settle({ kind: 'failed', message: `Could not deliver to ${url.host}: ${error.code ?? error.message}.` });
    });
    request.end(input.body);
  });
}

/** Keeps the first `maxBodyBytes` of the answer, then stops reading and closes the connection. */
function readAnswer(response: http.IncomingMessage, maxBodyBytes: number, settle: (outcome: SendOutcome) => void): void {
  const status = response.statusCode ?? 0;
  const address = response.socket.remoteAddress ?? '';
  const location = response.headers.location;
  const chunks: Buffer[] = [];
  let kept = 0;
  const answered = () => settle({ kind: 'answered', status, bodySnippet: Buffer.concat(chunks).toString('utf8'), address, location });
  const finish = () => {
    answered();
    // A large or endless answer must not hold the worker: the connection is closed, not reused.
    response.destroy();
  };
  response.on('data', (chunk: Buffer) => {
    if (kept < maxBodyBytes) {
      const part = chunk.subarray(0, maxBodyBytes - kept);
      chunks.push(part);
      kept += part.length;
    }
    if (kept >= maxBodyBytes) finish();
  });
  // Read to its end: a keep-alive socket goes back to the endpoint's pool.
  response.on('end', answered);
  // The status is known: a body cut short (timeout, reset) still counts as this answer.
  response.on('error', finish);
  response.on('close', finish);
}
