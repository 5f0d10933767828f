/**
 * Zod schemas of "Sign in with Chargeport": the OAuth tab's app form, and the in-app pay API
 * (request and response bodies, used by the routes and the OpenAPI document).
 */
import { z } from 'zod';
import { OAUTH_CLIENT_TYPES } from '@/lib/db/schema/oauth';

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * A redirect URI: https; http on a loopback host (development, desktop apps); or a private-use scheme
 * in reverse-domain form for native apps and games (RFC 8252: com.studio.game:/callback). No fragment.
 */
const redirectUriSchema = z
  .string()
  .trim()
  .max(500)
  .superRefine((value, ctx) => {
    const url = URL.parse(value);
    if (!url) return void ctx.addIssue({ code: 'custom', message: `"${value}" is not a URL` });
    if (url.hash || value.includes('#')) return void ctx.addIssue({ code: 'custom', message: `"${value}" must not have a #fragment` });
    if (url.protocol === 'https:') return;
    if (url.protocol === 'http:') {
      if (!LOOPBACK_HOSTS.has(url.hostname)) ctx.addIssue({ code: 'custom', message: `"${value}": use https (http only on localhost)` });
      return;
    }
    if (!/^[a-z][a-z0-9+.-]*\.[a-z0-9+.-]+:$/.test(url.protocol) || ['javascript:', 'data:', 'file:'].includes(url.protocol)) {
      ctx.addIssue({ code: 'custom', message: `"${value}": use https, http://localhost, or an app scheme like com.studio.game:/callback` });
    }
  });

export const registerOAuthAppSchema = z.object({
  name: z.string().trim().min(1, 'Give the app a name').max(60, 'at most 60 characters'),
  logoUrl: z
    .string()
    .trim()
    .max(500)
    .transform((value) => value || undefined)
    .pipe(z.url({ protocol: /^https$/, error: 'must be an https:// image URL' }).optional())
    .optional(),
  redirectUris: z.array(redirectUriSchema).min(1, 'Add at least one redirect URI').max(10, 'at most 10 redirect URIs'),
  clientType: z.enum(OAUTH_CLIENT_TYPES),
});
export type RegisterOAuthAppInput = z.input<typeof registerOAuthAppSchema>;

export const createPaymentRequestSchema = z.object({ chargeId: z.string().trim().min(1, 'is required') }).strict();

export const paymentRequestSchema = z
  .object({
    id: z.string().meta({ example: 'opr_4fR…' }),
    chargeId: z.string(),
    status: z.enum(['pending', 'confirmed', 'declined', 'expired']).meta({
      description:
        'pending until the user confirms with the PIN (confirmed: the payment is on its way) or declines; expired after expiresAt',
    }),
    chargeStatus: z.string().meta({ description: "The charge's own status: succeeded once the payment is confirmed on chain" }),
    userCode: z.string().meta({ example: 'BCDF-GHJK', description: 'For games: show it with verificationUri' }),
    verificationUri: z.string().meta({ example: 'https://pay.example.com/oauth/pay' }),
    verificationUriComplete: z.string().meta({ description: 'verificationUri with the code; the web SDK opens it in a popup' }),
    expiresAt: z.string().meta({ description: 'ISO 8601' }),
    interval: z.number().meta({ description: 'Seconds to wait between polls' }),
    txHash: z.string().nullable(),
  })
  .meta({ id: 'PaymentRequest' });
