/** The browser's side of GET /api/onramp/quote: the request it sends and the failure it can show. */
import type { FiatMethod } from '@/lib/onramp/fiat-methods';
import type { OnrampQuoteView } from '@/lib/onramp/quote-onramp';

export interface QuoteRequest {
  providerId: string;
  chain: string;
  tokenSymbol: string;
  paymentMethod: FiatMethod;
  amount: { kind: 'crypto' | 'usd'; value: string };
}

/** An answer the page can explain: the API's error code and message, or a network failure. */
export class QuoteFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export async function requestQuote(input: QuoteRequest, signal: AbortSignal): Promise<OnrampQuoteView> {
  const query = new URLSearchParams({
    provider: input.providerId,
    chain: input.chain,
    token: input.tokenSymbol,
    method: input.paymentMethod,
    amount_kind: input.amount.kind,
    amount: input.amount.value,
  });
  const response = await fetch(`/api/onramp/quote?${query}`, { signal, cache: 'no-store' });
  const body = (await response.json().catch(() => null)) as {
    data: OnrampQuoteView | null;
    error: { code: string; message: string } | null;
  } | null;
  if (response.ok && body?.data) return body.data;
  throw new QuoteFailure(body?.error?.code ?? 'quote_unavailable', body?.error?.message ?? 'No quote right now. Try again in a moment.');
}
