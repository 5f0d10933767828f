/**
 * Where to go after signing in (the `callbackUrl` kept through the e-mail code, provider and second-factor
 * steps). Only a path on this site is followed: an open redirect would let a crafted link send a fresh
 * session to another origin. The value is resolved as a browser would ("//evil.example", "/\evil.example"
 * and tab-split forms all leave the origin) and kept only if the origin stays ours.
 */
const HERE = 'https://chargeport.invalid';

export function safeReturnPath(value: unknown, options: { appUrl?: string; fallback?: string } = {}): string {
  const fallback = options.fallback ?? '/wallet';
  if (typeof value !== 'string' || value.length === 0 || value.length > 2048) return fallback;
  const appOrigin = options.appUrl ? new URL(options.appUrl).origin : undefined;
  // A path from the root, or a URL written out in full with our origin; nothing relative or scheme-less.
  if (!value.startsWith('/') && !(appOrigin && value.startsWith(`${appOrigin}/`))) return fallback;
  let url: URL;
  try {
    // A path resolves against a placeholder origin; "//host" or "/\\host" escape it, and are caught below.
    url = new URL(value, HERE);
  } catch {
    return fallback;
  }
  if (url.origin !== HERE && url.origin !== appOrigin) return fallback;
  return `${url.pathname}${url.search}${url.hash}`;
}
