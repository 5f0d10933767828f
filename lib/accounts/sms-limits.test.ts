import { afterEach, describe, expect, it } from 'vitest';
import { resetEnvCache } from '@/lib/env';
import { newId } from '@/lib/ids';
import { appError } from '@/test/accounts';
import { consumeSmsBudget, resetSmsLimiters } from './sms-limits';

const saved = { ...process.env };
function configure(values: Record<string, string>) {
  Object.assign(process.env, values);
  resetEnvCache();
  resetSmsLimiters();
}

afterEach(() => {
  for (const name of ['SMS_PER_USER_PER_HOUR', 'SMS_PER_IP_PER_HOUR', 'SMS_PER_COUNTRY_PER_HOUR', 'SMS_ALLOWED_COUNTRIES']) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
  resetEnvCache();
  resetSmsLimiters();
});

const ip = () => `198.51.100.${Math.floor(Math.random() * 250)}-${newId('user')}`;

describe('SMS limits (against SMS pumping)', () => {
  it('per account, per client IP, and only to allowed countries', async () => {
    configure({ SMS_PER_USER_PER_HOUR: '2', SMS_PER_IP_PER_HOUR: '3', SMS_PER_COUNTRY_PER_HOUR: '1000', SMS_ALLOWED_COUNTRIES: 'FR,DE' });
    const user = newId('user');
    const sharedIp = ip();
    await consumeSmsBudget({ userId: user, ip: sharedIp, phoneE164: '+33612345678' });
    await consumeSmsBudget({ userId: user, ip: ip(), phoneE164: '+33612345678' });
    expect((await appError(consumeSmsBudget({ userId: user, ip: ip(), phoneE164: '+33612345678' }))).code).toBe('rate_limited');

    await consumeSmsBudget({ userId: newId('user'), ip: sharedIp, phoneE164: '+4915112345678' });
    await consumeSmsBudget({ userId: newId('user'), ip: sharedIp, phoneE164: '+4915112345678' });
    expect((await appError(consumeSmsBudget({ userId: newId('user'), ip: sharedIp, phoneE164: '+4915112345678' }))).code).toBe(
      'rate_limited',
    );

    expect((await appError(consumeSmsBudget({ userId: newId('user'), ip: ip(), phoneE164: '+12025550123' }))).code).toBe(
      'sms_country_not_allowed',
    );
  });

  it('per country calling code; a refunded SMS does not count', async () => {
    configure({ SMS_PER_USER_PER_HOUR: '100', SMS_PER_IP_PER_HOUR: '100', SMS_PER_COUNTRY_PER_HOUR: '2' });
    // A country no other test texts: the counter is shared by the whole suite.
    const phone = '+37060012345';
    const first = await consumeSmsBudget({ userId: newId('user'), ip: ip(), phoneE164: phone });
    await first.refund();
    await consumeSmsBudget({ userId: newId('user'), ip: ip(), phoneE164: phone });
    await consumeSmsBudget({ userId: newId('user'), ip: ip(), phoneE164: phone });
    expect((await appError(consumeSmsBudget({ userId: newId('user'), ip: ip(), phoneE164: phone }))).code).toBe('rate_limited');
  });
});
