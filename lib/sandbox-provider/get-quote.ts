/** What `GET /sandbox-provider/api/quote` answers: the price for a token amount, or the tokens a fiat amount buys. */
import { invalidRequest } from './errors';
import { quoteForCrypto, quoteForFiat } from './sandbox-quote';
import { quoteQuerySchema } from './schemas';

export interface QuoteResponse {
  cryptoAmount: string;
  fiatCurrency: string;
  rate: string;
  providerFee: string;
  networkFee: string;
  total: string;
  expiresAt: string;
}

export function getQuote(query: Record<string, string>, now = new Date()): QuoteResponse {
  const parsed = quoteQuerySchema.safeParse(query);
  if (!parsed.success) throw invalidRequest(parsed.error);
  const { cryptoAmount, fiatAmount, ...rest } = parsed.data;
  const quote =
    cryptoAmount !== undefined ? quoteForCrypto({ ...rest, cryptoAmount, now }) : quoteForFiat({ ...rest, fiatAmount: fiatAmount!, now });
  return {
    cryptoAmount: quote.cryptoAmount,
    fiatCurrency: quote.fiatCurrency,
    rate: quote.rate,
    providerFee: quote.providerFee,
    networkFee: quote.networkFee,
    total: quote.total,
    expiresAt: quote.expiresAt.toISOString(),
  };
}
