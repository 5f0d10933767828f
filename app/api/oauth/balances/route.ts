// GET /api/oauth/balances — the signed-in user's wallet addresses and balances, for an app holding an
// access token with `wallet:read` (the wallet Home's data: lib/wallets/cached-balance.ts).
import { corsPreflight } from '@/lib/api/cors';
import { methodsNotAllowed } from '@/lib/api/methods';
import { ok } from '@/lib/http/response-envelope';
import { withAccessToken } from '@/lib/api/with-access-token';
import { loadWalletHome } from '@/lib/wallets/cached-balance';

export const GET = withAccessToken('wallet:read', async (_request, ctx) => ok(await loadWalletHome(ctx.userId)));

export const OPTIONS = corsPreflight;

export const { POST, PUT, PATCH, DELETE } = methodsNotAllowed('GET');
