// GET /api/oauth/balances — the signed-in user's wallet addresses and balances, for an app holding an
// access token with `wallet:read` (the wallet Home's data: lib/wallets/wallet-balances.ts).
import { randomUUID } from 'node:crypto';
import { ANY_ORIGIN, corsPreflight, withCorsHeaders } from '@/lib/api/cors';
import { methodsNotAllowed } from '@/lib/api/methods';
import { fail, ok } from '@/lib/api/respond';
import { authenticateAccessToken } from '@/lib/oauth/authenticate-access-token';
import { loadWalletHome } from '@/lib/wallets/wallet-balances';

export async function GET(request: Request): Promise<Response> {
  try {
    const ctx = await authenticateAccessToken(request, 'wallet:read');
    return withCorsHeaders(ok(await loadWalletHome(ctx.userId)), ANY_ORIGIN);
  } catch (error) {
    return withCorsHeaders(fail(error, randomUUID()), ANY_ORIGIN);
  }
}

export const OPTIONS = corsPreflight;

export const { POST, PUT, PATCH, DELETE } = methodsNotAllowed('GET');
