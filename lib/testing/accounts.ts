import { readOutbox } from '@/lib/notifications/outbox';
import { randomBase62 } from '@/lib/ids';

export function uniqueEmail(prefix = 'user'): string {
  return `${prefix}-${randomBase62(10).toLowerCase()}@example.test`;
}

/** The code in the newest message of the dev outbox sent to `to` (e-mail or phone). */
export function latestCode(to: string, channel: 'email' | 'sms' = 'email'): string {
  const [message] = readOutbox(channel, to);
  const code = message?.text.match(/\b(\d{6})\b/)?.[1];
  if (!code) throw new Error(`no code sent to ${to}`);
  return code;
}
