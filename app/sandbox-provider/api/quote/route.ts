// GET /sandbox-provider/api/quote — Sandpiper Pay: the price of a token amount (or the tokens a fiat amount buys)
import { getQuote } from '@/lib/sandbox-provider/get-quote';
import { handleProviderRequest, providerJson } from '@/lib/sandbox-provider/handle-provider-request';

export async function GET(request: Request): Promise<Response> {
  return handleProviderRequest(async () => providerJson(getQuote(Object.fromEntries(new URL(request.url).searchParams))));
}
