// GET /api/onramp/quote — the on-ramp page's price for a purchase at a provider, in the buyer's country.
import { z } from 'zod';
import { parseOrThrow } from '@/lib/api/parse';
import { ok } from '@/lib/http/response-envelope';
import { withPublic } from '@/lib/api/with-public';
import { CHAIN_NAMES } from '@/lib/chains/registry';
import { requestCountry } from '@/lib/geo/request-country';
import { FIAT_METHODS } from '@/lib/onramp/fiat-methods';
import { quoteOnramp } from '@/lib/onramp/quote-onramp';
import { consumeOnrampRateLimit } from '@/lib/rate-limit/onramp-rate-limit';
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

export const GET = withPublic(async (request) => {
  const query = parseOrThrow(querySchema, Object.fromEntries(new URL(request.url).searchParams));
  // The same country the page showed: the buyer's pick (cookie), else the request's geolocation.
  const { country } = await requestCountry(request);
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
});

export const { POST, PUT, PATCH, DELETE } = methodsNotAllowed('GET');
