/** Sandpiper Pay's API inputs: the session a partner creates and the quote it asks for. */
import { z } from 'zod';
import { CHAIN_NAMES } from '@/lib/chains/registry';
import { SANDBOX_PAYMENT_METHODS, type SandboxPaymentMethod } from '@/lib/db/schema/sandbox-provider';

export type { SandboxPaymentMethod };

const decimalText = (example: string) =>
  z
    .string()
    .trim()
    .regex(/^\d+(?:\.\d+)?$/, `must be a plain decimal string such as "${example}"`);
const fiatCurrency = z
  .string()
  .trim()
  .regex(/^[A-Za-z]{3}$/, 'must be an ISO 4217 code such as USD')
  .transform((code) => code.toUpperCase());
const chain = z.enum(CHAIN_NAMES, { error: `must be one of ${CHAIN_NAMES.join(', ')}` });
const paymentMethod = z.enum(SANDBOX_PAYMENT_METHODS, { error: `must be one of ${SANDBOX_PAYMENT_METHODS.join(', ')}` });

export const createSessionSchema = z.strictObject({
  partnerOrderId: z.string().trim().min(1).max(128),
  walletAddress: z.string().trim().min(1),
  chain,
  tokenSymbol: z.string().trim().min(1).max(16),
  cryptoAmount: decimalText('25.5'),
  fiatCurrency,
  /** The quoted total the buyer will pay. */
  fiatAmount: decimalText('26.88'),
  paymentMethod,
  country: z
    .string()
    .trim()
    .regex(/^[A-Za-z]{2}$/, 'must be an ISO 3166-1 alpha-2 code such as US')
    .transform((code) => code.toUpperCase()),
  redirectUrl: z.url({ protocol: /^https?$/, error: 'must be an absolute http(s) URL' }).max(2048),
  email: z.email().optional(),
  /** The partner shows us as this provider (the sandbox standing in for it): said on the screen. */
  standingInFor: z.string().trim().min(1).max(40).optional(),
});

/** Either the tokens to receive (cryptoAmount) or the fiat to spend (fiatAmount), not both. */
export const quoteQuerySchema = z
  .strictObject({
    chain,
    tokenSymbol: z.string().trim().min(1).max(16),
    cryptoAmount: decimalText('25.5').optional(),
    fiatAmount: decimalText('25').optional(),
    fiatCurrency,
    paymentMethod: paymentMethod.default('card'),
  })
  .refine((query) => (query.cryptoAmount === undefined) !== (query.fiatAmount === undefined), {
    message: 'give exactly one of cryptoAmount and fiatAmount',
    path: ['cryptoAmount'],
  });
