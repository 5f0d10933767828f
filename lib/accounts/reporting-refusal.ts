/**
 * The owner's mailbox shows what was tried (issue 26): when a step-up for a money move or an ownership
 * change is refused — no PIN, passkey or e-mail code, a wrong one, a factor still in its live-mode
 * cooling (FACTOR_COOLING_HOURS), or an account without the two-factor sign-in the action needs — the
 * account is e-mailed what was tried, when, from which IP and browser, and what to do if it was not
 * them; for a merchant action the merchant's other owners too. Never a secret: the PIN or code tried
 * is not in the mail, the record or the log.
 *
 * The one hook: `reportingRefusal` wraps the proof checks of verifyStepUp, requireSecondFactor and
 * verifyFactorChangeProof, so every feature that asks for a step-up reports its refusals (a feature
 * names what it is with a StepUpAttempt; the verifiers require one).
 *
 * Each refusal is a `step_up_refusals` row (and, for a merchant action, a `step_up.refused` audit
 * entry), committed in its own transaction: the refused action's transaction rolls back. The rows are
 * the throttle: one e-mail per account per action per 15 minutes, whatever the server process, so a
 * brute force does not flood the mailbox (the PIN's attempt limit still applies). Mail is sent after
 * that commit (sendEmail: SMTP or the dev outbox); a failure to record or send is logged and never
 * replaces the refusal the caller sees.
 */
import 'server-only';
import { and, eq, gt, ne, sql } from 'drizzle-orm';
import { headers } from 'next/headers';
import { getDb } from '@/lib/db/client';
import { auditLog, merchantMembers, merchants, stepUpRefusals, users, type ApiKeyMode } from '@/lib/db/schema';
import { env } from '@/lib/env';
import { AppError } from '@/lib/errors';
import { clientIpFrom } from '@/lib/http/client-ip';
import { newId } from '@/lib/ids';
import { log } from '@/lib/log';
import { sendEmail } from '@/lib/notifications/send-email';

/** What a step-up confirms, as the mail says it ("… tried to withdraw funds"). */
export const STEP_UP_ACTIONS = {
  withdrawal: 'withdraw funds from the merchant wallet',
  refund: 'refund a charge',
  refund_to_other_address: 'refund a charge to an address that did not pay it',
  contract_register: 'register a contract for fulfilment',
  fulfilment_rule_create: 'add a fulfilment rule',
  fulfilment_rule_change: 'pause or resume a fulfilment rule',
  private_key_export: 'export a wallet private key',
  member_invite: 'invite an owner or admin',
  member_promote: 'make a member an owner or admin',
  production_key_create: 'create a production API key',
  webhook_endpoint_change: 'change a live webhook endpoint',
  email_change: 'change the account e-mail',
  passkey_add: 'add a passkey',
  passkey_remove: 'remove a passkey',
  totp_on: 'turn on an authenticator app',
  totp_off: 'remove the authenticator app',
  recovery_codes_renew: 'renew the recovery codes',
  wallet_send: 'send funds from your wallet',
  balance_payment: 'pay a charge from your balance',
  spending_allowance: 'approve a spending allowance for a merchant',
  held_funds_swap: 'swap funds held for a payment',
} as const;

export type StepUpAction = keyof typeof STEP_UP_ACTIONS;

/** Which action a step-up confirms, and for whom: `merchantId` makes it a merchant action (its owners hear of it). */
export interface StepUpAttempt {
  action: StepUpAction;
  merchantId?: string;
  mode?: ApiKeyMode;
  /** The client's IP and browser; read from the request being served when not given. */
  ip?: string | null;
  userAgent?: string | null;
}

/** One e-mail per account per action per this interval; later refusals are recorded only. */
export const REFUSAL_NOTICE_INTERVAL_MS = 15 * 60_000;

/** The errors that refuse the proof itself (not a missing account or a bad form): why, in words. */
function refusalReason(error: unknown): string | undefined {
  if (!(error instanceof AppError)) return undefined;
  switch (error.code) {
    case 'step_up_required':
      return 'no PIN, passkey or e-mail code was given';
    case 'pin_incorrect':
      return 'the PIN entered was wrong';
    case 'pin_locked':
      return 'the PIN is locked after wrong entries';
    case 'pin_disabled':
      return 'the PIN is disabled after too many wrong entries';
    case 'pin_not_set':
      return 'the account has no PIN';
    case 'step_up_failed':
      return 'the passkey did not confirm';
    case 'factor_cooling_down':
      return `the second factor offered was added less than ${env().FACTOR_COOLING_HOURS} hours ago and does not count yet`;
    case 'two_factor_required':
      return 'the account has no two-factor sign-in, which this needs';
    case 'code_incorrect':
    case 'code_expired':
    case 'code_attempts_exceeded':
      return 'the e-mail code was wrong or expired';
    case 'invalid_request':
      return error.param === 'pin' || error.param === 'passkey' ? 'the PIN or passkey answer was malformed' : undefined;
    default:
      return undefined;
  }
}

/** The request being served, if any (server actions and route handlers); tests and jobs have none. */
async function requestClient(): Promise<{ ip: string | null; userAgent: string | null }> {
  try {
    const list = await headers();
    return { ip: clientIpFrom(list), userAgent: list.get('user-agent')?.slice(0, 300) ?? null };
  } catch {
    return { ip: null, userAgent: null };
  }
}

/**
 * Runs `check` (a step-up's proof check); when it refuses, reports the refusal, then throws the same
 * error. The one place refusals are hooked.
 */
export async function reportingRefusal<T>(
  input: { userId: string; attempt: StepUpAttempt; now?: Date },
  check: () => Promise<T>,
): Promise<T> {
  try {
    return await check();
  } catch (error) {
    await reportRefusedStepUp({ ...input, error });
    throw error;
  }
}

/** Records the refusal (if `error` refuses the proof) and e-mails it unless this account and action were e-mailed in the interval. */
async function reportRefusedStepUp(input: { userId: string; attempt: StepUpAttempt; error: unknown; now?: Date }): Promise<void> {
  const reason = refusalReason(input.error);
  if (!reason) return;
  const { attempt } = input;
  const at = input.now ?? new Date();
  try {
    const fromRequest = attempt.ip === undefined || attempt.userAgent === undefined ? await requestClient() : undefined;
    const ip = attempt.ip ?? fromRequest?.ip ?? null;
    const userAgent = attempt.userAgent ?? fromRequest?.userAgent ?? null;
    const code = (input.error as AppError).code;
    const isNotified = await getDb().transaction(async (tx) => {
      // Never wait behind the refused action's own transaction (still open while this runs).
      await tx.execute(sql`set local lock_timeout = '5s'`);
      // Concurrent refusals of one account and action queue here, so exactly one of them is e-mailed.
      await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`step_up_refusal:${input.userId}:${attempt.action}`}, 0))`);
      const [recent] = await tx
        .select({ id: stepUpRefusals.id })
        .from(stepUpRefusals)
        .where(
          and(
            eq(stepUpRefusals.userId, input.userId),
            eq(stepUpRefusals.action, attempt.action),
            eq(stepUpRefusals.notified, true),
            gt(stepUpRefusals.createdAt, new Date(at.getTime() - REFUSAL_NOTICE_INTERVAL_MS)),
          ),
        )
        .limit(1);
      await tx.insert(stepUpRefusals).values({
        id: newId('stepUpRefusal'),
        userId: input.userId,
        merchantId: attempt.merchantId ?? null,
        action: attempt.action,
        reason: code,
        ip,
        userAgent,
        notified: !recent,
        createdAt: at,
      });
      if (attempt.merchantId) {
        const [member] = await tx
          .select({ role: merchantMembers.role })
          .from(merchantMembers)
          .where(and(eq(merchantMembers.merchantId, attempt.merchantId), eq(merchantMembers.userId, input.userId)));
        if (member) {
          await tx.insert(auditLog).values({
            id: newId('auditEntry'),
            merchantId: attempt.merchantId,
            actorUserId: input.userId,
            actorRole: member.role,
            action: 'step_up.refused',
            mode: attempt.mode ?? null,
            data: { action: attempt.action, reason: code },
            ip,
            createdAt: at,
          });
        }
      }
      return !recent;
    });
    if (isNotified) await sendRefusalEmails({ userId: input.userId, attempt, reason, at, ip, userAgent });
  } catch (error) {
    log.error('step-up refusal report failed', { userId: input.userId, action: attempt.action, error });
  }
}

async function sendRefusalEmails(input: {
  userId: string;
  attempt: StepUpAttempt;
  reason: string;
  at: Date;
  ip: string | null;
  userAgent: string | null;
}): Promise<void> {
  const { attempt } = input;
  const what = STEP_UP_ACTIONS[attempt.action];
  const [actor] = await getDb().select({ email: users.email }).from(users).where(eq(users.id, input.userId));
  const [merchant] = attempt.merchantId
    ? await getDb().select({ name: merchants.name }).from(merchants).where(eq(merchants.id, attempt.merchantId))
    : [];
  const forMerchant = merchant ? ` for ${merchant.name}${attempt.mode ? ` (${attempt.mode} mode)` : ''}` : '';
  const details = [
    `When: ${input.at.toISOString()}`,
    `From: ${input.ip ?? 'an unknown address'}`,
    `Browser: ${input.userAgent ?? 'unknown'}`,
    '',
    `Further refused attempts of this kind in the next ${REFUSAL_NOTICE_INTERVAL_MS / 60_000} minutes are recorded but not e-mailed.`,
  ];
  if (actor?.email) {
    await sendEmail({
      to: actor.email,
      subject: `Chargeport security: a refused attempt to ${what}`,
      text: [
        `Someone signed in to your account tried to ${what}${forMerchant}, and it was refused: ${input.reason}. Nothing was changed.`,
        '',
        ...details,
        '',
        'If this was you, there is nothing to do.',
        `If it was not: someone has your session. At ${env().APP_URL}/account/profile choose “Sign out everywhere” to end every other session, then change your PIN at ${env().APP_URL}/account/security and remove any passkey or authenticator app you do not recognise.`,
      ].join('\n'),
    });
  }
  if (!attempt.merchantId || !merchant) return;
  const owners = await getDb()
    .select({ email: users.email })
    .from(merchantMembers)
    .innerJoin(users, eq(users.id, merchantMembers.userId))
    .where(
      and(eq(merchantMembers.merchantId, attempt.merchantId), eq(merchantMembers.role, 'owner'), ne(merchantMembers.userId, input.userId)),
    );
  for (const owner of owners) {
    if (!owner.email) continue;
    await sendEmail({
      to: owner.email,
      subject: `${merchant.name}: a refused attempt to ${what}`,
      text: [
        `Someone signed in as ${actor?.email ?? input.userId} tried to ${what}${forMerchant}, and it was refused: ${input.reason}. Nothing was changed.`,
        '',
        ...details,
        '',
        `If you did not expect this, ask them, and review the audit log at ${env().APP_URL}/dashboard/settings/audit-log and your members.`,
      ].join('\n'),
    });
  }
}
