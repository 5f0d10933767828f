// GET /examples/pay — a pretend merchant page (a game shop) that takes payment with the SDK's pay().
import type { Metadata } from 'next';
import { GameShop } from '@/components/examples/game-shop';
import { env } from '@/lib/env';
import { DEMO_KEYS } from '@/lib/admin/seed-demo';
import { DEMO_OAUTH_APP_ID } from '@/lib/admin/seed-demo-app';

export const metadata: Metadata = { title: 'Example: pay without leaving the page', robots: { index: false } };
// The SDK talks to this deployment (APP_URL), known only at run time.
export const dynamic = 'force-dynamic';

export default function PayExamplePage() {
  // `npm run dev` seeds this demo publishable key; anywhere else the visitor pastes their own.
  const demoKey = process.env.NODE_ENV === 'development' ? DEMO_KEYS.publishableTest.plaintext : '';
  const demoClientId = process.env.NODE_ENV === 'development' ? DEMO_OAUTH_APP_ID : '';
  return <GameShop baseUrl={env().APP_URL} defaultApiKey={demoKey} defaultClientId={demoClientId} />;
}
