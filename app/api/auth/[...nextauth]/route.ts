// /api/auth/* — next-auth's endpoints (OIDC redirects and callbacks, session, CSRF, sign-out). Unknown
// actions answer 404 in the API envelope, and POST bodies are capped before next-auth reads them.
import { randomUUID } from 'node:crypto';
import { NextRequest } from 'next/server';
import { readBodyLimited } from '@/lib/http/body';
import { methodsNotAllowed, notFoundRoute } from '@/lib/api/methods';
import { fail } from '@/lib/http/response-envelope';
import { AUTH_MAX_BODY_BYTES, handlers, isAuthRoute } from '@/lib/auth/auth';

export async function GET(request: NextRequest): Promise<Response> {
  if (!isAuthRoute(new URL(request.url).pathname)) return notFoundRoute(request);
  return handlers.GET(request);
}

export async function POST(request: NextRequest): Promise<Response> {
  if (!isAuthRoute(new URL(request.url).pathname)) return notFoundRoute(request);
  let body: Buffer;
  try {
    body = await readBodyLimited(request, AUTH_MAX_BODY_BYTES);
  } catch (error) {
    return fail(error, randomUUID());
  }
  return handlers.POST(new NextRequest(request.url, { method: 'POST', headers: request.headers, body: new Uint8Array(body) }));
}

export const { PUT, PATCH, DELETE } = methodsNotAllowed('GET', 'POST');
