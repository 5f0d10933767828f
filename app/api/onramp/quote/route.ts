// GET /api/onramp/quote — the on-ramp page's price for a purchase at a provider, in the buyer's country.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { fail, ok } from '@/lib/api/respond';
import { CHAIN_NAMES } from '@/lib/chains/registry';
import { COUNTRY_COOKIE, countryFromRequest } from '@/lib/geo/country';
import { isOnrampError } from '@/lib/onramp/errors';
import { FIAT_METHODS } from '@/lib/onramp/fiat-methods';
import { quoteOnramp } from '@/lib/onramp/quotes';
import { consumeOnrampRateLimit } from '@/lib/onramp/rate-limit';
import { clientIpFrom } from '@/lib/http/client-ip';
import { ONRAMP_PROVIDER_IDS } from '@/lib/onramp/providers/types';
import { methodsNotAllowed } from '@/lib/api/methods';

const querySchema = z.object({
  provider: z.enum(ONRAMP_PROVIDER_IDS),
  chain: z.enum(CHAIN_NAMES),
  token: z.string().trim().min(1).max(16),
  method: z.enum(FIAT_METHODS),
  amount_kind: z.enum(['crypto', 'usd']),
  amount: z.string().trim().min(1).max(64),
});

function cookieValue(request: Request, name: string): string | undefined {
  for (const part of (request.headers.get('cookie') ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return decodeURIComponent(value.join('='));
  }
  return undefined;
}

export async function GET(request: Request): Promise<Response> {
  const requestId = randomUUID();
  const parsed = querySchema.safeParse(Object.fromEntries(new URL(request.url).searchParams));
  if (!parsed.success) return fail(parsed.error, requestId);
  const query = parsed.data;
  // The same country the page showed: the buyer's pick (cookie), else the request's geolocation.
  const { country } = countryFromRequest(request.headers, cookieValue(request, COUNTRY_COOKIE));
  try {
    await consumeOnrampRateLimit('quotes', clientIpFrom(request.headers));
    const quote = await quoteOnramp({
      providerId: query.provider,
      country,
      chain: query.chain,
      tokenSymbol: query.token,
      paymentMethod: query.method,
      amount: { kind: query.amount_kind, value: query.amount },
    });
    return ok(quote);
  } catch (error) {
    if (!isOnrampError(error)) return fail(error, requestId);
    const body = { data: null, error: { code: error.code, message: error.message, ...(error.details ? { details: error.details } : {}) } };
    const retryAfter = error.details?.retryAfter;
    return Response.json(body, {
      status: error.status,
      headers: { 'cache-control': 'no-store', 'x-request-id': requestId, ...(retryAfter ? { 'retry-after': retryAfter } : {}) },
    });
  }
}

export const { POST, PUT, PATCH, DELETE } = methodsNotAllowed('GET');
