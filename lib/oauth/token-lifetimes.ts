/** Token lifetimes of the OpenID provider, in seconds (lib/oauth/provider.ts). */
export const ACCESS_TOKEN_TTL_SECONDS = 15 * 60;
export const ID_TOKEN_TTL_SECONDS = 60 * 60;
/** A refresh token is replaced at every use (rotation); unused, it lapses after 30 days. */
export const REFRESH_TOKEN_TTL_SECONDS = 30 * 24 * 60 * 60;
export const AUTHORIZATION_CODE_TTL_SECONDS = 60;
export const DEVICE_CODE_TTL_SECONDS = 10 * 60;
/** A consent, once given, lasts a year unless the user or the merchant revokes it. */
export const GRANT_TTL_SECONDS = 365 * 24 * 60 * 60;
