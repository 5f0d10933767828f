import Link from 'next/link';
import { headers } from 'next/headers';
import { env } from '@/lib/env';
import OnrampPage from './onramp/page';
import { isCheckoutSiteRequest } from './onramp/site-origin';
import type { SearchParams } from './onramp/onramp-params';

/**
 * `/` of the checkout site is the on-ramp (spec: GET {checkout_url}/ with chain, token, wallet,
 * wallet_label). When CHECKOUT_URL names its own host, requests for that host get the on-ramp right
 * here (rendered, not redirected, so the merchant's link stays the address the buyer sees); on the app's
 * host (or when both are one site) `/` stays the product's landing page, which links to /onramp.
 */
export default async function HomePage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  if (isCheckoutSiteRequest(await headers(), env())) return <OnrampPage searchParams={searchParams} />;
  return (
    <main className="mx-auto max-w-3xl px-6 py-16">
      <h1 className="text-3xl font-semibold tracking-tight">Chargeport</h1>
      <p className="mt-3 text-lg text-slate-600">
        Crypto payments for games and apps. Create a charge with one API call, send the player to the hosted checkout, get notified when it
        is paid.
      </p>
      <div className="mt-8 flex flex-wrap gap-3">
        <Link href="/signup" className="rounded-lg bg-brand-600 px-4 py-2.5 text-sm font-semibold text-white hover:bg-brand-700">
          Create an account
        </Link>
        <Link href="/signin" className="rounded-lg px-4 py-2.5 text-sm font-semibold text-slate-900 ring-1 ring-slate-300 hover:bg-white">
          Sign in
        </Link>
        <Link href="/onramp" className="rounded-lg px-4 py-2.5 text-sm font-semibold text-slate-900 ring-1 ring-slate-300 hover:bg-white">
          Buy crypto
        </Link>
      </div>
      <ul className="mt-10 space-y-2 text-brand-600">
        <li>
          <Link className="underline underline-offset-4" href="/docs/api">
            API reference
          </Link>
        </li>
        <li>
          <a className="underline underline-offset-4" href="/api/openapi.json">
            OpenAPI document
          </a>
        </li>
        <li>
          {/* A JSON route, not a page (the lint rule takes app/api/[...path] for one): a plain link. */}
          {/* eslint-disable-next-line @next/next/no-html-link-for-pages */}
          <a className="underline underline-offset-4" href="/api/health">
            Service health
          </a>
        </li>
      </ul>
    </main>
  );
}
