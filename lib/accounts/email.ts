import { z } from 'zod';

export const emailSchema = z
  .string()
  .trim()
  .max(254, 'is too long')
  .pipe(z.email('is not an e-mail address'))
  .transform((value) => value.toLowerCase());

export function maskEmail(email: string): string {
  const [name = '', domain = ''] = email.split('@');
  return `${name.slice(0, 2)}${'•'.repeat(Math.max(1, name.length - 2))}@${domain}`;
}
