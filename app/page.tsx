import type { Metadata } from 'next';
import Link from 'next/link';
import { headers } from 'next/headers';
import { Logo } from '@/components/ui/logo';
import { env } from '@/lib/env';
import OnrampPage from './onramp/page';
import type { SearchParams } from '@/lib/onramp/links/onramp-params';
import { rootShowsOnramp } from '@/lib/onramp/links/root-shows-onramp';

const WAYS_TO_PAY = [
  {
    title: 'Chargeport balance',
    text: 'Players with an account pay in one step with their PIN. The network fee is on us.',
  },
  {
    title: 'Any wallet',
    text: 'MetaMask, a phone wallet or an exchange: a QR code, a payment link or one click with the browser wallet.',
  },
  {
    title: 'Card, bank or Apple Pay',
    text: 'No crypto yet? Players buy exactly what the charge needs through an on-ramp chosen for their country.',
  },
] as const;

const WAYS_IN = [
  { href: '/dashboard', title: 'Merchant dashboard', text: 'Charges, balances and withdrawals, API keys, webhooks, members.' },
  { href: '/wallet', title: 'Wallet', text: 'Your balances on every chain, activity, receive, send and buy.' },
  { href: '/onramp', title: 'Buy crypto', text: 'Card, bank transfer, Apple Pay or Google Pay, straight to a wallet.' },
  { href: '/docs/api', title: 'API reference', text: 'Every endpoint, its errors and webhooks, with the OpenAPI document.' },
] as const;

const CREATE_CHARGE = `curl -X POST http://localhost:3000/api/createCharge \\
  -H 'x-api-key: cp_test_…' -H 'content-type: application/json' \\
  -d '{"chargeData":{"symbol":"USDC","chain":"POLYGON","amount":"4.99"}}'`;

const primary = 'inline-flex min-h-11 items-center rounded-lg bg-brand-600 px-5 text-sm font-semibold text-white hover:bg-brand-700';
const secondary =
  'inline-flex min-h-11 items-center rounded-lg bg-white px-5 text-sm font-semibold text-slate-900 ring-1 ring-slate-300 hover:bg-slate-50';

async function showsOnramp(searchParams: Promise<SearchParams>): Promise<boolean> {
  const [requestHeaders, query] = await Promise.all([headers(), searchParams]);
  return rootShowsOnramp({ headers: requestHeaders, urls: env(), query });
}

export async function generateMetadata({ searchParams }: { searchParams: Promise<SearchParams> }): Promise<Metadata> {
  // The root segment's own title skips the layout's template: spelled out as /onramp's reads.
  return (await showsOnramp(searchParams)) ? { title: { absolute: 'Buy crypto · Chargeport' } } : {};
}

/**
 * `/` is the on-ramp (spec: GET {checkout_url}/ with chain, token, wallet, wallet_label) on the checkout
 * site's own host, and on any host for a link carrying one of those parameters (root-shows-onramp.ts).
 * Rendered, not redirected, so the merchant's link stays the address the buyer sees. Otherwise `/` is
 * the product's landing page.
 */
export default async function HomePage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  if (await showsOnramp(searchParams)) return <OnrampPage searchParams={searchParams} />;
  return (
    <div className="min-h-dvh bg-white">
      <header className="border-b border-slate-200">
        <div className="mx-auto flex max-w-6xl items-center gap-4 px-4 py-3 sm:px-6">
          <Logo />
          <nav aria-label="Main" className="ml-auto flex items-center gap-1 text-sm font-medium">
            <Link href="/docs/api" className="hidden rounded-md px-3 py-2 text-slate-700 hover:bg-slate-100 sm:inline-flex">
              API reference
            </Link>
            <Link href="/wallet" className="hidden rounded-md px-3 py-2 text-slate-700 hover:bg-slate-100 sm:inline-flex">
              Wallet
            </Link>
            <Link href="/signin" className="rounded-md px-3 py-2 text-slate-700 hover:bg-slate-100">
              Sign in
            </Link>
          </nav>
        </div>
      </header>
      <main>
        <section className="bg-gradient-to-b from-brand-50 to-white">
          <div className="mx-auto max-w-6xl px-4 py-16 sm:px-6 sm:py-24">
            <p className="text-sm font-semibold text-brand-700">Crypto payments for games and apps</p>
            <h1 className="mt-3 max-w-3xl text-4xl font-semibold tracking-tight text-balance text-slate-900 sm:text-5xl">
              Sell items, coins and passes for crypto. Players pay the way they already can.
            </h1>
            <p className="mt-5 max-w-2xl text-lg text-pretty text-slate-600">
              Create a charge with one API call, send the player to a hosted checkout or open it in your game, and get a signed webhook the
              moment it is paid. Players pay from their Chargeport balance, from any wallet, or with a card.
            </p>
            <div className="mt-8 flex flex-wrap gap-3">
              <Link href="/signup?callbackUrl=%2Fdashboard" className={primary}>
                Start accepting payments
              </Link>
              <Link href="/dashboard" className={secondary}>
                Merchant dashboard
              </Link>
              <Link href="/wallet" className={secondary}>
                Open your wallet
              </Link>
            </div>
          </div>
        </section>

        <section aria-labelledby="pay-heading" className="mx-auto max-w-6xl px-4 py-16 sm:px-6">
          <h2 id="pay-heading" className="text-2xl font-semibold tracking-tight">
            Three ways for a player to pay
          </h2>
          <ul className="mt-8 grid gap-4 sm:grid-cols-3">
            {WAYS_TO_PAY.map((way) => (
              <li key={way.title} className="rounded-2xl bg-slate-50 p-6 ring-1 ring-slate-200">
                <h3 className="font-semibold">{way.title}</h3>
                <p className="mt-2 text-sm text-slate-600">{way.text}</p>
              </li>
            ))}
          </ul>
        </section>

        <section aria-labelledby="ways-in-heading" className="border-y border-slate-200 bg-slate-50">
          <div className="mx-auto max-w-6xl px-4 py-16 sm:px-6">
            <h2 id="ways-in-heading" className="text-2xl font-semibold tracking-tight">
              Where to go
            </h2>
            <ul className="mt-8 grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
              {WAYS_IN.map((way) => (
                <li key={way.href}>
                  <Link
                    href={way.href}
                    className="flex h-full flex-col rounded-2xl bg-white p-6 ring-1 ring-slate-200 transition hover:ring-brand-500"
                  >
                    <span className="font-semibold text-slate-900">
                      {way.title} <span aria-hidden="true">→</span>
                    </span>
                    <span className="mt-2 text-sm text-slate-600">{way.text}</span>
                  </Link>
                </li>
              ))}
            </ul>
          </div>
        </section>

        <section aria-labelledby="dev-heading" className="mx-auto grid max-w-6xl gap-8 px-4 py-16 sm:px-6 lg:grid-cols-2">
          <div className="min-w-0">
            <h2 id="dev-heading" className="text-2xl font-semibold tracking-tight">
              Running in two commands
            </h2>
            <p className="mt-3 text-slate-600">
              A real PostgreSQL, local chains with demo tokens, a demo merchant and a funded demo player: everything starts on your machine,
              offline.
            </p>
            <pre className="mt-6 rounded-xl bg-slate-900 p-4 text-sm break-words whitespace-pre-wrap text-slate-100">
              <code>{'npm install\nnpm run dev'}</code>
            </pre>
          </div>
          <div className="min-w-0">
            <h3 className="text-lg font-semibold">Then create a charge</h3>
            <p className="mt-3 text-slate-600">
              The answer carries the <code className="rounded bg-slate-100 px-1">paymentUrl</code> to send the player to. See the{' '}
              <Link href="/docs/api" className="font-medium text-brand-700 underline underline-offset-4">
                API reference
              </Link>{' '}
              or the{' '}
              <a href="/api/openapi.json" className="font-medium text-brand-700 underline underline-offset-4">
                OpenAPI document
              </a>
              .
            </p>
            <pre className="mt-6 rounded-xl bg-slate-900 p-4 text-sm break-words whitespace-pre-wrap text-slate-100">
              <code>{CREATE_CHARGE}</code>
            </pre>
          </div>
        </section>
      </main>
      <footer className="border-t border-slate-200">
        <div className="mx-auto flex max-w-6xl flex-wrap items-center gap-x-6 gap-y-2 px-4 py-6 text-sm text-slate-600 sm:px-6">
          <span>Chargeport</span>
          <Link href="/docs/api" className="hover:text-slate-900">
            API reference
          </Link>
          {/* A JSON route, not a page (the lint rule takes app/api/[...path] for one): a plain link. */}
          {/* eslint-disable-next-line @next/next/no-html-link-for-pages */}
          <a href="/api/health" className="hover:text-slate-900">
            Service health
          </a>
        </div>
      </footer>
    </div>
  );
}
