// GET /.well-known/openid-configuration — the OpenID provider's discovery document (lib/oauth/provider.ts).
import { handleOidcRequest } from '@/lib/oauth/handle-oidc-request';

export const dynamic = 'force-dynamic';

export const GET = handleOidcRequest;
export const OPTIONS = handleOidcRequest;
