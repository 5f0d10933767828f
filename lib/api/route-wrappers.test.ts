import { describe, expect, it, vi } from 'vitest';
import { GET as checkoutStatus } from '@/app/api/checkout/[chargeId]/status/route';
import { GET as onrampOrder } from '@/app/api/onramp/orders/[orderId]/route';
import { getDb } from '@/lib/db/client';
import { createUser } from '@/lib/accounts/create-user';
import { signIn } from '@/lib/auth/auth';
import { createSignInTicket } from '@/lib/auth/sign-in-ticket';
import { AppError } from '@/lib/errors';
import { uniqueEmail } from '@/test/accounts';
import { withPublic } from './with-public';
import { withSession } from './with-session';

// withSession reads the session the way pages do (next/headers); the test stands in for Next's request scope.
const scope = vi.hoisted(() => ({ headers: new Headers(), cookies: new Map<string, string>() }));
vi.mock('next/headers', async () => (await import('@/test/next-request-scope')).nextHeadersMock(scope));

const route = (params: Record<string, string>) => ({ params: Promise.resolve(params) });

async function envelope(response: Response): Promise<{ data: unknown; error: { code: string; message: string } | null }> {
  return (await response.json()) as { data: unknown; error: { code: string; message: string } | null };
}

describe('withPublic: routes answers the { data, error } envelope with a request id', () => {
  it('a domain error becomes its code and status; the caller’s request id is echoed', async () => {
    const handler = withPublic(async () => {
      throw new AppError('rate_limited', 'Slow down.', { headers: { 'retry-after': '7' }, details: { retryAfter: '7' } });
    });
    const response = await handler(new Request('http://x/api/y', { headers: { 'x-request-id': 'req-123' } }));
    expect(response.status).toBe(429);
    expect(response.headers.get('x-request-id')).toBe('req-123');
    expect(response.headers.get('retry-after')).toBe('7');
    expect(await envelope(response)).toEqual({
      data: null,
      error: { code: 'rate_limited', message: 'Slow down.', details: { retryAfter: '7' } },
    });
  });

  it('an unknown error is a generic 500 that quotes the request id and leaks nothing', async () => {
    const handler = withPublic(async () => {
      throw new Error('password=hunter2 at db.internal:5432');
    });
    const response = await handler(new Request('http://x/api/y'));
    const body = await envelope(response);
    expect(response.status).toBe(500);
    expect(body.error?.code).toBe('internal_error');
    expect(body.error?.message).toContain(response.headers.get('x-request-id')!);
    expect(JSON.stringify(body)).not.toContain('hunter2');
  });

  it('public routes: an unknown id is 404 not_found in the envelope', async () => {
    for (const response of [
      await checkoutStatus(new Request('http://x/api/checkout/nope/status'), route({ chargeId: 'nope' })),
      await onrampOrder(new Request('http://x/api/onramp/orders/nope'), route({ orderId: 'nope' })),
    ]) {
      expect(response.status).toBe(404);
      expect(response.headers.get('x-request-id')).toBeTruthy();
      expect((await envelope(response)).error?.code).toBe('not_found');
    }
  });
});

describe('withSession: routes our pages call with the cookie session', () => {
  const echo = withSession(async (_request, { user }, params) => Response.json({ data: { userId: user.id, params }, error: null }));

  /** Signs a new account in through next-auth, as the sign-in pages do; the session cookie lands in the scope's jar. */
  async function signInNewUser({ emailVerified }: { emailVerified: boolean }): Promise<string> {
    const email = uniqueEmail('with-session');
    const user = await getDb().transaction((tx) => createUser(tx, { email, emailVerified, method: 'email', subject: email }));
    scope.cookies.clear();
    await signIn('ticket', { ticket: createSignInTicket(user.id), redirect: false });
    return user.id;
  }

  it('a request without a session is 401 unauthenticated in the envelope, with a request id; the handler never runs', async () => {
    scope.cookies.clear();
    let ran = false;
    const handler = withSession(async () => {
      ran = true;
      return Response.json({ data: {}, error: null });
    });
    for (const cookie of [undefined, 'not-a-token']) {
      if (cookie) scope.cookies.set('__Host-chargeport.session', cookie);
      const response = await handler(new Request('http://x/api/y', { method: 'POST', headers: { 'x-request-id': 'req-401' } }));
      expect(response.status).toBe(401);
      expect(response.headers.get('x-request-id')).toBe('req-401');
      expect(await envelope(response)).toEqual({
        data: null,
        error: { code: 'unauthenticated', message: 'Your session has ended. Sign in again.' },
      });
    }
    expect(ran).toBe(false);
  });

  it('a session whose e-mail is not verified is 403 email_not_verified', async () => {
    await signInNewUser({ emailVerified: false });
    const response = await echo(new Request('http://x/api/y'));
    expect(response.status).toBe(403);
    expect((await envelope(response)).error?.code).toBe('email_not_verified');
  });

  it('a signed-in user reaches the handler with ctx.user and the route params', async () => {
    const userId = await signInNewUser({ emailVerified: true });
    const response = await echo(new Request('http://x/api/y'), route({ chargeId: 'ch_1' }));
    expect(response.status).toBe(200);
    expect(await envelope(response)).toEqual({ data: { userId, params: { chargeId: 'ch_1' } }, error: null });
  });
});
