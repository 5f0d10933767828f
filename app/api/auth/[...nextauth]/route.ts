// /api/auth/* — next-auth's endpoints (OIDC redirects and callbacks, session, CSRF, sign-out).
import { handlers } from '@/lib/auth/auth';

export const { GET, POST } = handlers;
