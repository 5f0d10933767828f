import { CODE_TTL_MS } from './verification-codes';

/** The one wording of an SMS carrying a one-time code (the PIN reset code, the phone linking code). */
export function codeSmsText(code: string): string {
  return `Your Chargeport code is ${code}. It expires in ${CODE_TTL_MS / 60_000} minutes.`;
}
