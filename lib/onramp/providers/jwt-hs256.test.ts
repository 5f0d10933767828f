import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { verifyHs256Jwt } from './jwt-hs256';

const NOW = new Date('2026-11-22T12:00:00Z');
const b64 = (text: string) => Buffer.from(text).toString('base64url');
function sign(headerJson: string, payloadJson: string, secret: string): string {
  const input = `${b64(headerJson)}.${b64(payloadJson)}`;
  return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`;
}
const verify = (token: string, secrets: string[] = ['k']) => verifyHs256Jwt(token, secrets, { now: NOW, clockToleranceSeconds: 0 });

describe('verifyHs256Jwt (RFC 7515 / 7518 §3.2 / 7519)', () => {
  // RFC 7515 Appendix A.1: the HS256 example, with its JWK secret and its exact token.
  const RFC_KEY = Buffer.from('AyM1SysPpbyDfgZld3umj1qzKObwVMkoqQ-EstJQLr_T-1qS0gZH75aKtMN3Yj0iPS4hcgUuTwjAzZr1Z9CAow', 'base64url');
  const RFC_TOKEN =
    'eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9' +
    '.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ' +
    '.dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';

  it('verifies the RFC 7515 A.1 example signature', async () => {
    // Its exp (2011-03-22T18:43:00Z) has long passed: the signature is right, the token is stale.
    expect(await verifyHs256Jwt(RFC_TOKEN, [RFC_KEY], { now: NOW, clockToleranceSeconds: 0 })).toMatchObject({ ok: false, code: 'stale' });
    expect(await verifyHs256Jwt(RFC_TOKEN, [Buffer.from('wrong')], { now: NOW, clockToleranceSeconds: 0 })).toMatchObject({
      code: 'invalid_signature',
    });
    const before = await verifyHs256Jwt(RFC_TOKEN, [RFC_KEY], { now: new Date(1300819379 * 1000), clockToleranceSeconds: 0 });
    expect(before).toMatchObject({ ok: true, payload: { iss: 'joe', exp: '1300819380' } });
  });

  it('keeps payload numbers as exact text', async () => {
    const result = await verify(sign('{"alg":"HS256"}', '{"amount":0.1000000000000000055511151231257827}', 'k'));
    expect(result).toMatchObject({ ok: true, payload: { amount: '0.1000000000000000055511151231257827' } });
  });

  it('tries every candidate secret', async () => {
    expect((await verify(sign('{"alg":"HS256"}', '{}', 'second'), ['first', 'second'])).ok).toBe(true);
    expect(await verify(sign('{"alg":"HS256"}', '{}', 'third'), ['first', 'second'])).toMatchObject({ code: 'invalid_signature' });
  });

  it('refuses headers that are not JSON objects', async () => {
    expect(await verify(`${b64('not json')}.${b64('{}')}.sig`)).toMatchObject({ code: 'malformed_signature' });
    expect(await verify(`${b64('"HS256"')}.${b64('{}')}.sig`)).toMatchObject({ code: 'malformed_signature' });
  });

  it('refuses any algorithm but HS256 and unknown crit extensions, however well signed', async () => {
    expect(await verify(`${b64('{"alg":"none"}')}.${b64('{}')}.`)).toMatchObject({ code: 'unsupported_algorithm' });
    expect(await verify(sign('{"alg":"HS512"}', '{}', 'k'))).toMatchObject({ code: 'unsupported_algorithm' });
    expect(await verify(sign('{"alg":"HS256","crit":["x-ours"],"x-ours":1}', '{}', 'k'))).toMatchObject({ code: 'unsupported_algorithm' });
  });

  it('checks exp and nbf on the exact payload text, within the tolerance', async () => {
    const now = NOW.getTime() / 1000;
    expect(await verify(sign('{"alg":"HS256"}', `{"exp":${now - 1}}`, 'k'))).toMatchObject({ code: 'stale' });
    expect(await verify(sign('{"alg":"HS256"}', `{"nbf":${now + 60}}`, 'k'))).toMatchObject({ code: 'stale' });
    expect(await verify(sign('{"alg":"HS256"}', '{"exp":"soon"}', 'k'))).toMatchObject({ code: 'malformed_signature' });
    expect((await verify(sign('{"alg":"HS256"}', `{"exp":${now + 60}}`, 'k'))).ok).toBe(true);
  });
});
