// GET /api/onramp/quote — the on-ramp page's price for a purchase at a provider, in the buyer's country.
import { parseOrThrow, searchParamsObject } from '@/lib/api/parse';
import { ok } from '@/lib/http/response-envelope';
import { withPublic } from '@/lib/api/with-public';
import { requestCountry } from '@/lib/geo/request-country';
import { quoteOnramp } from '@/lib/onramp/quote-onramp';
import { onrampQuoteQuerySchema } from '@/lib/onramp/schemas';
import { consumeOnrampRateLimit } from '@/lib/rate-limit/onramp-rate-limit';
import { clientIpFrom } from '@/lib/http/client-ip';
import { methodsNotAllowed } from '@/lib/api/methods';

export const GET = withPublic(async (request) => {
  const query = parseOrThrow(onrampQuoteQuerySchema, searchParamsObject(request));
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
