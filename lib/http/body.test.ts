import { describe, expect, it } from 'vitest';
import { parse } from 'lossless-json';
import { AppError } from '@/lib/errors';
import { parseNumberExactly, readJsonBody } from './body';

describe('lossless JSON numbers', () => {
  it('keeps numbers a float would change as their exact text', () => {
    const parsed = parse('{"a":0.30000000000000001,"b":12345678901234567890,"c":0.1,"d":3,"e":1.50}', null, parseNumberExactly) as Record<
      string,
      unknown
    >;
    expect(parsed).toEqual({ a: '0.30000000000000001', b: '12345678901234567890', c: 0.1, d: 3, e: '1.50' });
  });
});

describe('readJsonBody: no NUL character gets past the body', () => {
  const post = (body: string) =>
    new Request('http://localhost/api/x', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  const refusal = (body: string) =>
    readJsonBody(post(body)).then(
      () => undefined,
      (error: unknown) => (error instanceof AppError ? { code: error.code, param: error.param } : error),
    );

  it('a NUL written as the escape \\u0000, in a value or a key, is 400 invalid_request naming the field', async () => {
    expect(await refusal('{"chargeData":{"metadata":{"orderId":"a\\u0000b"}}}')).toEqual({
      code: 'invalid_request',
      param: 'chargeData.metadata.orderId',
    });
    expect(await refusal('{"items":[{"name":"ok"},{"name":"\\u0000"}]}')).toEqual({ code: 'invalid_request', param: 'items.1.name' });
  });

  it('a raw NUL is not JSON (an unescaped control character): 400 invalid_json', async () => {
    expect(await refusal('{"description":"a\u0000b"}')).toEqual({ code: 'invalid_json', param: undefined });
  });

  it('a body without one comes back parsed, an escaped backslash before u0000 included (not a NUL)', async () => {
    expect(await readJsonBody(post('{"a":"x","n":1.50}'))).toEqual({ a: 'x', n: '1.50' });
    expect(await readJsonBody(post('{"a":"\\\\u0000"}'))).toEqual({ a: '\\u0000' });
  });
});
