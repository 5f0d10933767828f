/**
 * What an app may ask of a Chargeport account ("Sign in with Chargeport"), in the words the consent
 * screen uses. `offline_access` is not offered: every grant gets a refresh token (rotated on use).
 */
export const OAUTH_SCOPES = ['openid', 'email', 'profile', 'wallet:read', 'payments'] as const;
export type OAuthScope = (typeof OAUTH_SCOPES)[number];

export const SCOPE_DESCRIPTIONS: Record<OAuthScope, string> = {
  openid: 'Know who you are on Chargeport (an account id for this app)',
  email: 'See your e-mail address',
  profile: 'See your basic profile',
  'wallet:read': 'See your wallet addresses and balances',
  payments: "Ask you to pay this merchant's charges from your balance — each payment still needs your PIN, typed on Chargeport",
};

const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
export const OAUTH_GRANT_TYPES = ['authorization_code', 'refresh_token', DEVICE_CODE_GRANT] as const;

/** The scopes of a space-separated `scope` string that Chargeport knows, in canonical order. */
export function knownScopes(scope: string | undefined): OAuthScope[] {
  const asked = new Set((scope ?? '').split(/\s+/).filter(Boolean));
  return OAUTH_SCOPES.filter((name) => asked.has(name));
}
