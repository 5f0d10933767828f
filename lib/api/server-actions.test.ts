/**
 * The server-action wrapper (lib/api/server-actions.ts) on real PostgreSQL and next-auth: parse errors,
 * AppError mapping, redirects passing through, the session and permission checks. Only Next's request
 * scope is stood in for (test/next-request-scope.ts).
 */
import { eq } from 'drizzle-orm';
import { encode } from 'next-auth/jwt';
import { redirect } from 'next/navigation';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { issueSessionClaims } from '@/lib/auth/session-token';
import { getDb } from '@/lib/db/client';
import { merchantMembers, users } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';
import { newUser } from '@/test/accounts';
import { newMerchant } from '@/test/fixtures';
import { formField, memberAction, publicCall, userAction, userCall } from './server-actions';

const scope = vi.hoisted(() => ({ headers: new Headers({ host: 'localhost:3999' }), cookies: new Map<string, string>() }));
vi.mock('next/headers', async () => (await import('@/test/next-request-scope')).nextHeadersMock(scope));

const SESSION_COOKIE = '__Host-chargeport.session';

async function signIn(userId: string | undefined): Promise<void> {
  scope.cookies.clear();
  if (!userId) return;
  const claims = (await issueSessionClaims(userId, { secondFactorPassed: true }))!;
  scope.cookies.set(SESSION_COOKIE, await encode({ token: claims, secret: process.env.AUTH_SECRET!, salt: SESSION_COOKIE }));
}

async function verifiedUser(): Promise<string> {
  const userId = await newUser();
  await getDb().update(users).set({ emailVerifiedAt: new Date() }).where(eq(users.id, userId));
  return userId;
}

function form(fields: Record<string, string>): FormData {
  const data = new FormData();
  for (const [name, value] of Object.entries(fields)) data.set(name, value);
  return data;
}

const nameAction = userAction(
  { schema: z.object({ name: z.string().min(3) }), values: (f) => ({ name: formField(f, 'name') }) },
  async ({ user }, { input }) => ({ notice: `${input.name} for ${user.id}` }),
);

describe('userAction / userCall', () => {
  let userId: string;
  beforeEach(async () => {
    userId = await verifiedUser();
    await signIn(userId);
  });

  it('runs with the signed-in user and the parsed input', async () => {
    expect(await nameAction({}, form({ name: 'Ada' }))).toEqual({ notice: `Ada for ${userId}` });
  });

  it('a parse error answers invalid_request naming the field, and keeps the submitted values', async () => {
    const state = await nameAction({}, form({ name: 'A' }));
    expect(state.error).toMatchObject({ code: 'invalid_request', param: 'name' });
    expect(state.values).toEqual({ name: 'A' });
  });

  it('an AppError becomes its body; the form keeps its values', async () => {
    const action = userAction({ values: (f) => ({ amount: formField(f, 'amount') }) }, async () => {
      throw new AppError('insufficient_balance', 'Not enough.', { param: 'amount' });
    });
    expect(await action({}, form({ amount: '9' }))).toEqual({
      error: { code: 'insufficient_balance', message: 'Not enough.', param: 'amount' },
      values: { amount: '9' },
    });
  });

  it('Next’s redirect() propagates (it is not an AppError), and so does a bug', async () => {
    const redirecting = userAction({}, async () => redirect('/done'));
    await expect(redirecting({}, form({}))).rejects.toMatchObject({ digest: expect.stringMatching(/^NEXT_REDIRECT;.*\/done/) });
    const buggy = userCall(async () => {
      throw new TypeError('boom');
    });
    await expect(buggy()).rejects.toThrow('boom');
  });

  it('with a fallback, a bug is answered internal_error with that message', async () => {
    const guarded = publicCall(
      async () => {
        throw new TypeError('boom');
      },
      { log: 'test action failed', message: 'Try again.' },
    );
    expect(await guarded()).toEqual({ error: { code: 'internal_error', message: 'Try again.' } });
  });

  it('an unauthenticated call is refused with unauthenticated, before the work runs', async () => {
    await signIn(undefined);
    const work = vi.fn(async () => ({ notice: 'ran' }));
    const state = await userAction({}, work)({}, form({}));
    expect(state.error?.code).toBe('unauthenticated');
    expect(work).not.toHaveBeenCalled();
    expect(await userCall(async () => 'ran')()).toEqual({ error: { code: 'unauthenticated', message: expect.any(String) } });
  });

  it('an account without a verified e-mail is refused with email_not_verified', async () => {
    const unverified = await newUser();
    await signIn(unverified);
    expect((await nameAction({}, form({ name: 'Ada' }))).error?.code).toBe('email_not_verified');
  });
});

describe('memberAction', () => {
  const refundAction = memberAction({ permission: 'charges.refund' }, async ({ actor, mode, stepUp }) => ({
    notice: `${actor.merchantId} ${mode} ${stepUp.pin ?? ''}`,
  }));

  async function memberOf(merchantId: string, role: 'owner' | 'viewer'): Promise<string> {
    const userId = await verifiedUser();
    await getDb().insert(merchantMembers).values({ merchantId, userId, role });
    return userId;
  }

  it('builds ctx from the session: the member’s merchant, the dashboard mode, the form’s step-up', async () => {
    const merchant = await newMerchant();
    await signIn(await memberOf(merchant.id, 'owner'));
    scope.cookies.set('cp_dashboard_mode', 'live');
    expect(await refundAction({}, form({ pin: '123456', merchantId: 'mer_other' }))).toEqual({ notice: `${merchant.id} live 123456` });
  });

  it('a member without the permission gets forbidden, and the work does not run', async () => {
    const merchant = await newMerchant();
    await signIn(await memberOf(merchant.id, 'viewer'));
    const work = vi.fn(async () => ({ notice: 'ran' }));
    const state = await memberAction({ permission: 'charges.refund' }, work)({}, form({}));
    expect(state.error).toMatchObject({ code: 'forbidden', message: expect.stringMatching(/viewer/) });
    expect(work).not.toHaveBeenCalled();
  });

  it('a signed-in user who is no member gets forbidden; no session gets unauthenticated', async () => {
    await signIn(await verifiedUser());
    expect((await refundAction({}, form({}))).error?.code).toBe('forbidden');
    await signIn(undefined);
    expect((await refundAction({}, form({}))).error?.code).toBe('unauthenticated');
  });
});

describe('no NUL character reaches a verb through an action', () => {
  beforeEach(async () => signIn(await verifiedUser()));

  it('a form field carrying one is invalid_request naming it; the work does not run', async () => {
    let ran = false;
    const action = userAction({ values: (f) => ({ name: formField(f, 'name') }) }, async () => {
      ran = true;
      return {};
    });
    const state = await action({}, form({ name: 'Ada\u0000', other: 'x' }));
    expect(state.error).toMatchObject({ code: 'invalid_request', param: 'name' });
    expect(ran).toBe(false);
  });

  it('an argument of an action called from client code likewise', async () => {
    let ran = false;
    const call = userCall(async (_ctx, input: { label: string }) => {
      ran = true;
      return input.label;
    });
    expect(await call({ label: 'a\u0000' })).toEqual({ error: expect.objectContaining({ code: 'invalid_request', param: '0.label' }) });
    expect(ran).toBe(false);
    expect(await call({ label: 'fine' })).toEqual({ data: 'fine' });
  });
});
