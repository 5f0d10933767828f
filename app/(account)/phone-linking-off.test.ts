/**
 * Without an SMS provider the account pages say that phone linking (and PIN reset by SMS) is off, instead
 * of offering forms that would fail.
 */
import { renderToStaticMarkup } from 'react-dom/server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { resetEnvCache } from '@/lib/env';

vi.mock('next/headers', () => ({ headers: async () => new Headers(), cookies: async () => ({ get: () => undefined }) }));
const user = { id: 'user_x', phoneE164: null as string | null, phoneVerifiedAt: null as Date | null, pinHash: 'hash' };
vi.mock('@/lib/auth/session', () => ({ requireUser: async () => user }));
const { default: PhonePage } = await import('./account/phone/page');
const { default: ForgotPinPage } = await import('./forgot-pin/page');

function setSmsProvider(smsProvider: string): void {
  process.env.SMS_PROVIDER = smsProvider;
  resetEnvCache();
}

async function render(smsProvider: string): Promise<string> {
  setSmsProvider(smsProvider);
  return renderToStaticMarkup(await PhonePage({ searchParams: Promise.resolve({}) }));
}

afterEach(() => {
  process.env.SMS_PROVIDER = 'dev';
  resetEnvCache();
});

describe('account pages without an SMS provider', () => {
  it('Phone: says linking is off and offers no form; with a provider, offers the form', async () => {
    const off = await render('none');
    expect(off).toContain('data-testid="phone-linking-off"');
    expect(off).toContain('Phone linking is off on this server');
    expect(off).not.toContain('<form');
    const on = await render('dev');
    expect(on).not.toContain('phone-linking-off');
    expect(on).toContain('<form');
  });

  it('Forgot PIN: a linked phone cannot get a code without a provider, so it says to contact support', async () => {
    user.phoneE164 = '+33612345678';
    user.phoneVerifiedAt = new Date();
    try {
      setSmsProvider('none');
      const off = renderToStaticMarkup(await ForgotPinPage());
      expect(off).toContain('data-testid="phone-linking-off"');
      expect(off).not.toContain('<form');
      setSmsProvider('dev');
      const on = renderToStaticMarkup(await ForgotPinPage());
      expect(on).not.toContain('phone-linking-off');
      expect(on).toContain('<form');
    } finally {
      user.phoneE164 = null;
      user.phoneVerifiedAt = null;
    }
  });
});
