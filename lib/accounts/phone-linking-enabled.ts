/**
 * Phone linking, and the PIN reset by SMS it enables, need an SMS provider. A deployment without one
 * (SMS_PROVIDER=none, the production default) runs with them off: the phone is optional (spec), the web
 * server logs it at start (instrumentation.ts), the account pages say so, and the actions refuse with
 * 503 service_unavailable before any code is issued or SMS budget spent.
 */
import { env } from '@/lib/env';
import { AppError } from '@/lib/errors';
import { log } from '@/lib/log';

const PHONE_LINKING_OFF_MESSAGE =
  'Phone linking is off on this server: it has no SMS provider configured (SMS_PROVIDER), so no code can be sent to a phone.';

export function phoneLinkingEnabled(): boolean {
  return env().SMS_PROVIDER !== 'none';
}

/** Throws service_unavailable when no SMS can be sent (call before issuing a code). */
export function assertPhoneLinkingEnabled(): void {
  if (!phoneLinkingEnabled()) throw new AppError('service_unavailable', PHONE_LINKING_OFF_MESSAGE);
}

/** At a web server's start: when linking is off, say so once in the log, with how to turn it on. */
export function announcePhoneLinking(): void {
  if (!phoneLinkingEnabled()) log.warn(`${PHONE_LINKING_OFF_MESSAGE} Set SMS_PROVIDER=twilio and TWILIO_* to turn it on.`);
}
