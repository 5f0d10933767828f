/**
 * `npm run dev`'s demo OAuth app of the demo merchant ("Pixel Quest", public client), whose redirect
 * URI is the example shop's callback on this APP_URL, so "Sign in with Chargeport" works on
 * /examples/pay out of the box. Development only, like the rest of the demo seed.
 */
import 'server-only';
import { getDb } from '@/lib/db/client';
import { oauthClients } from '@/lib/db/schema';
import { env } from '@/lib/env';
import { DEMO_MERCHANT } from '@/lib/admin/seed-demo';

export const DEMO_OAUTH_APP_ID = 'cpapp_DemoPixelQuestApp00000';

export async function seedDemoOAuthApp(): Promise<{ clientId: string; redirectUri: string }> {
  if (process.env.NODE_ENV === 'production') throw new Error('refusing to seed demo data in production');
  const redirectUri = `${env().APP_URL.replace(/\/+$/, '')}/examples/pay/callback`;
  const values = {
    id: DEMO_OAUTH_APP_ID,
    merchantId: DEMO_MERCHANT.id,
    name: 'Pixel Quest (demo)',
    redirectUris: [redirectUri],
    clientType: 'public' as const,
  };
  // The port may change between runs: the redirect URI follows APP_URL.
  await getDb()
    .insert(oauthClients)
    .values(values)
    .onConflictDoUpdate({ target: oauthClients.id, set: { redirectUris: [redirectUri], revokedAt: null } });
  return { clientId: DEMO_OAUTH_APP_ID, redirectUri };
}
