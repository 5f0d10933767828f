/**
 * Sends SMS through the configured provider: Twilio's Messages API, or the dev outbox
 * (development and tests; see outbox.ts). With SMS_PROVIDER=none nothing is sent: phone linking is off
 * (lib/accounts/phone-linking-enabled.ts).
 */
import { env } from '@/lib/env';
import { log } from '@/lib/log';
import { writeToOutbox } from './outbox';

export async function sendSms(message: { to: string; text: string }): Promise<void> {
  const config = env();
  if (config.SMS_PROVIDER === 'twilio') {
    const { TWILIO_ACCOUNT_SID: sid, TWILIO_AUTH_TOKEN: token, TWILIO_FROM: from } = config;
    // parseEnv refuses twilio without its three settings at start.
    if (!sid || !token || !from) throw new Error('SMS_PROVIDER=twilio needs TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN and TWILIO_FROM');
    const response = await fetch(`https://api.twilio.com/2010-04-01/Accounts/${encodeURIComponent(sid)}/Messages.json`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${sid}:${token}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ To: message.to, From: from, Body: message.text }),
      signal: AbortSignal.timeout(10_000),
    });
    if (!response.ok) throw new Error(`Twilio refused the SMS: HTTP ${response.status}`);
    log.info('sms sent', { to: message.to });
    return;
  }
  // Callers check phoneLinkingEnabled() first; this guards a code path that forgot.
  if (config.SMS_PROVIDER === 'none') throw new Error('SMS_PROVIDER=none: this server sends no SMS');
  writeToOutbox({ channel: 'sms', to: message.to, text: message.text });
  if (config.NODE_ENV === 'development') console.log(`[dev sms] to ${message.to}: ${message.text}`);
}
