/**
 * An app of the OAuth tab as oidc-provider client metadata. Public clients (browser apps, games)
 * authenticate with nothing but PKCE; confidential ones with their secret. Every app may use the
 * authorization code, refresh token and device grants; a redirect URI with a private-use scheme
 * (com.studio.game:/callback) makes it a native app (RFC 8252).
 */
import 'server-only';
import type { ClientMetadata } from 'oidc-provider';
import type { OAuthClient } from '@/lib/db/schema';
import { randomBase62 } from '@/lib/ids';
import { OAUTH_GRANT_TYPES } from './scopes';
import { openClientSecret } from './client-secret';

export function clientMetadataOf(client: OAuthClient): ClientMetadata {
  const isNative = client.redirectUris.some((uri) => !/^https?:/.test(uri));
  const isConfidential = client.clientType === 'confidential';
  return {
    client_id: client.id,
    client_name: client.name,
    ...(client.logoUrl ? { logo_uri: client.logoUrl } : {}),
    redirect_uris: client.redirectUris,
    application_type: isNative ? 'native' : 'web',
    grant_types: [...OAUTH_GRANT_TYPES],
    response_types: ['code'],
    token_endpoint_auth_method: isConfidential ? 'client_secret_basic' : 'none',
    // A confidential app whose secret was revoked cannot authenticate until it rolls a new one: no
    // one knows the random value that stands in for its secret.
    ...(isConfidential ? { client_secret: client.sealedSecret ? openClientSecret(client.id, client.sealedSecret) : randomBase62(43) } : {}),
  };
}
