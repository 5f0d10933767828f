/**
 * The route handlers of `/oidc/*` and `/.well-known/*` hand every request to the provider here: the
 * body is read (capped), the Chargeport user signed in is attached for the login check, and the
 * forwarded headers are set from APP_URL and the trusted client IP (lib/http/client-ip.ts) — never
 * taken from the request, so a client cannot pose as another host or address.
 */
import 'server-only';
import { randomUUID } from 'node:crypto';
import { readBodyLimited } from '@/lib/http/body';
import { fail } from '@/lib/http/response-envelope';
import { getSessionUser } from '@/lib/auth/session';
import { clientIpFrom } from '@/lib/http/client-ip';
import { nodeRequest, runNodeHandler } from './run-node-handler';
import { getProvider, issuerUrl, OIDC_PATH_PREFIX, SESSION_USER } from './provider';

/** oidc-provider refuses larger bodies itself (56 KiB); reading stops a little above. */
const OIDC_MAX_BODY_BYTES = 64 * 1024;

/** Steps where a person is signing in: the login check needs to know who is signed in to Chargeport. */
const INTERACTIVE_PATHS = [`${OIDC_PATH_PREFIX}/auth`, `${OIDC_PATH_PREFIX}/device`];

export async function handleOidcRequest(request: Request): Promise<Response> {
  const url = new URL(request.url);
  try {
    const body = ['GET', 'HEAD', 'OPTIONS'].includes(request.method) ? undefined : await readBodyLimited(request, OIDC_MAX_BODY_BYTES);
    const issuer = new URL(issuerUrl());
    const headers = new Headers(request.headers);
    for (const name of ['x-forwarded-for', 'x-forwarded-host', 'x-forwarded-proto', 'forwarded']) headers.delete(name);
    headers.set('x-forwarded-proto', issuer.protocol.slice(0, -1));
    headers.set('x-forwarded-host', issuer.host);
    headers.set('host', issuer.host);
    const ip = clientIpFrom(request.headers);
    if (ip) headers.set('x-forwarded-for', ip);

    const req = nodeRequest({ method: request.method, url: url.pathname + url.search, headers, body });
    const isInteractive = INTERACTIVE_PATHS.some((path) => url.pathname === path || url.pathname.startsWith(`${path}/`));
    // An account without a verified e-mail is not usable yet (spec rule 2): the sign-in step sends it to verify one.
    const user = isInteractive ? await getSessionUser() : undefined;
    (req as unknown as Record<symbol, string | null>)[SESSION_USER] = user?.emailVerifiedAt ? user.id : null;
    const provider = await getProvider();
    return await runNodeHandler(provider.callback(), req);
  } catch (error) {
    return fail(error, randomUUID());
  }
}
