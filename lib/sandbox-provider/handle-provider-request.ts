/**
 * Sandpiper Pay's API plumbing: its own envelope (`{ data }` / `{ error: { code, message, param? } }`),
 * partner authentication with the Bearer secret, and the switch that hides it when ONRAMP_SANDBOX is off.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { readBodyLimited } from '@/lib/http/body';
import { isAppError } from '@/lib/errors';
import { log } from '@/lib/log';
import { isSandboxProviderEnabled, sandboxProviderSecret } from './config';
import { SandboxApiError, isSandboxApiError } from './errors';

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' };
const MAX_BODY_BYTES = 16 * 1024;

export function providerJson(data: unknown, status = 200): Response {
  return new Response(JSON.stringify({ data }), { status, headers: JSON_HEADERS });
}

function providerError(error: unknown): Response {
  const known = isSandboxApiError(error) ? error : undefined;
  if (!known) log.error('sandbox provider: unhandled error', { error });
  const body = known
    ? { code: known.code, message: known.message, ...(known.param ? { param: known.param } : {}) }
    : { code: 'internal_error', message: 'Something went wrong at Sandpiper Pay.' };
  return new Response(JSON.stringify({ error: body }), { status: known?.status ?? 500, headers: JSON_HEADERS });
}

/** Runs a handler; a disabled provider does not exist (404), and errors become the provider's envelope. */
export async function handleProviderRequest(handler: () => Promise<Response>): Promise<Response> {
  try {
    if (!isSandboxProviderEnabled()) throw new SandboxApiError('not_found', 'Not found.');
    return await handler();
  } catch (error) {
    return providerError(error);
  }
}

/** `Authorization: Bearer <secret>`, compared in constant time (digests, so the length leaks nothing either). */
export function requirePartner(request: Request): void {
  const match = /^Bearer\s+(\S+)$/i.exec(request.headers.get('authorization') ?? '');
  const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();
  if (!match || !timingSafeEqual(digest(match[1]!), digest(sandboxProviderSecret()))) {
    throw new SandboxApiError('unauthorized', 'Missing or invalid API key: send `Authorization: Bearer <secret>`.');
  }
}

/** The JSON body, capped before it is read (a larger one is refused at the first byte past the cap). */
export async function readJsonBody(request: Request): Promise<unknown> {
  let text: string;
  try {
    text = (await readBodyLimited(request, MAX_BODY_BYTES)).toString('utf8');
  } catch (error) {
    if (isAppError(error) && error.code === 'payload_too_large')
      throw new SandboxApiError('payload_too_large', `The body is larger than ${MAX_BODY_BYTES} bytes.`);
    throw error;
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new SandboxApiError('invalid_json', 'The body is not valid JSON.');
  }
}
