/**
 * Route wrapper for routes the signed-in user calls from our own pages (cookie session): requires a
 * verified user (401 `unauthenticated`, 403 `email_not_verified`), and answers errors as the envelope.
 */
import type { User } from '@/lib/db/schema';
import { requireUserForAction } from '@/lib/auth/session';
import { respondWith, type RequestContext, type RouteParams } from './with-public';
import { refuseNulCharacters } from '@/lib/http/refuse-nul-characters';

interface SessionContext extends RequestContext {
  user: User;
}

type SessionHandler = (request: Request, ctx: SessionContext, params: Record<string, string>) => Promise<Response>;

export function withSession(handler: SessionHandler) {
  return (request: Request, route?: RouteParams): Promise<Response> =>
    respondWith(request, async (requestId) => {
      const user = await requireUserForAction();
      return handler(request, { user, requestId }, refuseNulCharacters((await route?.params) ?? {}, { in: 'path' }));
    });
}
