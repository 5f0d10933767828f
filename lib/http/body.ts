/**
 * Reading a JSON request body: size-limited, and parsed losslessly so a JSON number such as
 * 0.30000000000000001 or 12345678901234567890 reaches the amount parser as the exact text the
 * merchant sent, never as a rounded float.
 */
import { parse } from 'lossless-json';
import { env } from '@/lib/env';
import { AppError } from '@/lib/errors';
import { refuseNulCharacters } from './refuse-nul-characters';

/** `optional: true` → an empty body reads as `{}` (routes whose body fields are all optional). */
export async function readJsonBody(request: Request, options: { optional?: boolean } = {}): Promise<unknown> {
  const contentType = request.headers.get('content-type');
  if (contentType && !/^application\/(.+\+)?json\b/i.test(contentType)) {
    throw new AppError('unsupported_media_type', `Send the body as JSON with Content-Type: application/json (got ${contentType}).`);
  }
  const text = (await readBodyLimited(request, env().API_MAX_BODY_BYTES)).toString('utf8');
  if (text.trim() === '') {
    if (options.optional) return {};
    throw new AppError('invalid_json', 'The request body is empty: send a JSON object.');
  }
  let body: unknown;
  try {
    body = parse(text, null, parseNumberExactly);
  } catch (error) {
    const detail = error instanceof Error ? error.message : 'malformed JSON';
    throw new AppError('invalid_json', `The request body is not valid JSON: ${detail}.`);
  }
  // A NUL reaches a parsed string only as the escape \u0000 (or raw, if the parser lets one through): a body
  // with neither needs no walk.
  return text.includes('\\u0000') || text.includes('\u0000') ? refuseNulCharacters(body, { in: 'body' }) : body;
}

/** Numbers that survive a float round trip stay numbers; others stay as their exact text. */
export function parseNumberExactly(text: string): number | string {
  return String(Number(text)) === text ? Number(text) : text;
}

/**
 * The request's raw bytes, refused with 413 payload_too_large as soon as they exceed `limit`: a
 * declared Content-Length over the limit is refused before anything is read, and a body sent without
 * one (chunked) is cut off at the first chunk past the limit. Every route that reads a body from
 * someone not yet authenticated reads it through here.
 */
export async function readBodyLimited(request: Request, limit: number): Promise<Buffer> {
  const declared = Number(request.headers.get('content-length') ?? '0');
  if (declared > limit) throw tooLarge(limit);
  if (!request.body) return Buffer.alloc(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

function tooLarge(limit: number): AppError {
  return new AppError('payload_too_large', `The request body is larger than ${limit} bytes.`);
}
