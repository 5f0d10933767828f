// /oidc/* — the OpenID provider's endpoints (authorize, token, userinfo, JWKS, revocation, introspection,
// device authorization and verification), served by oidc-provider (lib/oauth/provider.ts).
import { handleOidcRequest } from '@/lib/oauth/handle-oidc-request';

export const dynamic = 'force-dynamic';

export const GET = handleOidcRequest;
export const POST = handleOidcRequest;
export const OPTIONS = handleOidcRequest;
