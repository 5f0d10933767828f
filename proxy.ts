/**
 * Runs before every page request: a fresh nonce, and the Content-Security-Policy that allows only
 * scripts carrying it. Next.js reads the policy from the request headers and puts the nonce on its
 * own scripts; the page response carries the same policy (lib/http/security-headers.ts).
 *
 * Not run for /api (static headers from next.config.mjs; and a proxy would make Next.js buffer request
 * bodies before the routes' caps), static files, prefetches, or JavaScript server-action calls (their
 * answers are RSC payloads, not documents, and their bodies stay unread until the action's cap).
 */
import { NextResponse, type NextRequest } from 'next/server';
import { pageContentSecurityPolicy } from '@/lib/http/security-headers.mjs';

export function proxy(request: NextRequest): NextResponse {
  // PostgreSQL stores no NUL character: a page URL carrying one (`%00`, kept encoded here) names nothing,
  // and would fail the page's query as a 500. The API refuses it per route (lib/http/refuse-nul-characters.ts).
  if (/%00/.test(request.nextUrl.pathname)) return new NextResponse('Not found.\n', { status: 404 });
  if (/%00/.test(request.nextUrl.search)) return new NextResponse('The query string carries a NUL character (%00).\n', { status: 400 });
  const nonce = Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString('base64');
  const policy = pageContentSecurityPolicy({
    nonce,
    isDevelopment: process.env.NODE_ENV === 'development',
    // Behind a TLS-terminating proxy, Next.js takes the scheme from X-Forwarded-Proto.
    upgradeInsecureRequests: request.nextUrl.protocol === 'https:',
    // Only the checkout offers WalletConnect. Read here, not through lib/env (server-only, and it validates
    // every variable): lib/env checks this one's format when the checkout renders the button.
    walletConnect: request.nextUrl.pathname.startsWith('/checkout/') && Boolean(process.env.WALLETCONNECT_PROJECT_ID?.trim()),
  });
  const requestHeaders = new Headers(request.headers);
  requestHeaders.set('x-nonce', nonce);
  requestHeaders.set('content-security-policy', policy);
  const response = NextResponse.next({ request: { headers: requestHeaders } });
  response.headers.set('content-security-policy', policy);
  return response;
}

export const config = {
  matcher: [
    {
      // /oidc and /.well-known: the OpenID provider sets its own policy (lib/oauth/device-pages.ts); /docs/api its own (Redoc).
      source: '/((?!api/|docs/api|oidc/|\\.well-known/|_next/static|_next/image|favicon.ico).*)',
      missing: [
        { type: 'header', key: 'next-router-prefetch' },
        { type: 'header', key: 'purpose', value: 'prefetch' },
        { type: 'header', key: 'next-action' },
      ],
    },
  ],
};
