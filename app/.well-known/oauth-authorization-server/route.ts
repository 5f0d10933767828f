// GET /.well-known/oauth-authorization-server — the same metadata for OAuth 2.0 clients (RFC 8414).
import { handleOidcRequest } from '@/lib/oauth/handle-oidc-request';

export const dynamic = 'force-dynamic';

export const GET = handleOidcRequest;
export const OPTIONS = handleOidcRequest;
