/**
 * Limits on the SMS we send (phone linking, PIN reset), against SMS pumping — someone making us text
 * premium or far-away numbers at our cost:
 *
 *  - only numbers of SMS_ALLOWED_COUNTRIES (when set) receive texts;
 *  - SMS_PER_USER_PER_HOUR per account, SMS_PER_IP_PER_HOUR per client IP, and
 *    SMS_PER_COUNTRY_PER_HOUR per country calling code (+33, +1, …), all in PostgreSQL so every
 *    instance shares them. Each code's own resend throttle (verification-codes.ts) comes on top.
 */
import 'server-only';
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { RateLimiterDrizzle, RateLimiterRes } from 'rate-limiter-flexible';
import { getDb } from '@/lib/db/client';
import { rateLimits } from '@/lib/db/schema';
import { env } from '@/lib/env';
import { AppError } from '@/lib/errors';
import { rateLimitKeyOfIp } from '@/lib/http/client-ip';

type Limiters = { user: RateLimiterDrizzle; ip: RateLimiterDrizzle; country: RateLimiterDrizzle };
const globalForLimiters = globalThis as unknown as { __chargeportSmsLimiters?: Limiters };

function limiter(keyPrefix: string, points: number): RateLimiterDrizzle {
  return new RateLimiterDrizzle({
    storeClient: getDb(),
    schema: rateLimits,
    keyPrefix,
    points,
    duration: 3600,
    clearExpiredByTimeout: false,
  });
}

function limiters(): Limiters {
  const config = env();
  globalForLimiters.__chargeportSmsLimiters ??= {
    user: limiter('sms-user', config.SMS_PER_USER_PER_HOUR),
    ip: limiter('sms-ip', config.SMS_PER_IP_PER_HOUR),
    country: limiter('sms-country', config.SMS_PER_COUNTRY_PER_HOUR),
  };
  return globalForLimiters.__chargeportSmsLimiters;
}

/** Tests change the limits between cases. */
export function resetSmsLimiters(): void {
  globalForLimiters.__chargeportSmsLimiters = undefined;
}

/**
 * Throws sms_country_not_allowed or rate_limited; otherwise counts one SMS to `phoneE164`. Returns
 * `refund` for when the SMS is not sent after all (the code's own resend throttle refused it).
 */
export async function consumeSmsBudget(input: {
  userId: string;
  ip: string | null;
  phoneE164: string;
}): Promise<{ refund: () => Promise<void> }> {
  const parsed = parsePhoneNumberFromString(input.phoneE164);
  const allowed = env().SMS_ALLOWED_COUNTRIES;
  if (allowed && (!parsed?.country || !allowed.includes(parsed.country))) {
    throw new AppError('sms_country_not_allowed', `We cannot send text messages to this country yet. Supported: ${allowed.join(', ')}.`, {
      param: 'phone',
    });
  }
  const checks: [RateLimiterDrizzle, string, string][] = [
    [limiters().user, input.userId, 'this account'],
    [limiters().ip, rateLimitKeyOfIp(input.ip), 'this network'],
    [limiters().country, `+${parsed?.countryCallingCode ?? 'unknown'}`, `numbers of this country`],
  ];
  const consumed: [RateLimiterDrizzle, string][] = [];
  const refund = async () => {
    for (const [store, key] of consumed) await store.reward(key, 1);
  };
  for (const [store, key, who] of checks) {
    try {
      await store.consume(key);
      consumed.push([store, key]);
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      await refund();
      const wait = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
      throw new AppError('rate_limited', `Too many text messages for ${who}. Try again in ${Math.ceil(wait / 60)} min.`, {
        headers: { 'retry-after': String(wait) },
      });
    }
  }
  return { refund };
}
