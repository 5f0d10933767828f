/**
 * The browser-facing security headers (docs/security.md, "Browser"). Pure JavaScript, so next.config.mjs and
 * proxy.ts share one policy (types: security-headers.d.mts). next.config.mjs sets the
 * static ones on every response, proxy.ts the page Content-Security-Policy with a fresh nonce.
 *
 * Framing: nothing embeds our pages. The SDK's `pay()` opens the checkout in a popup (ADR 0005) and
 * its overlay is plain DOM on the merchant's page, so `frame-ancestors 'none'` everywhere. The only
 * frames we show are on-ramp providers' widgets when an adapter is set to `embed` (MoonPay, Transak),
 * hence `frame-src` and the camera / payment permissions (KYC selfies, Apple / Google Pay) for exactly
 * their widget origins. The sandbox provider always opens in a new tab.
 */

/** Widget origins of the on-ramp adapters that can be embedded (lib/onramp/providers/moonpay.ts, transak.ts). */
const PROVIDER_FRAME_ORIGINS = [
  'https://buy.moonpay.com',
  'https://buy-sandbox.moonpay.com',
  'https://global.transak.com',
  'https://global-stg.transak.com',
];

const providers = PROVIDER_FRAME_ORIGINS.map((origin) => `"${origin}"`).join(' ');

/**
 * What WalletConnect's SDK and its QR modal (Reown AppKit) reach from the checkout when
 * WALLETCONNECT_PROJECT_ID is set (docs.reown.com, "Content Security Policy"): the relay (a WebSocket),
 * its RPC, wallet list, Verify and analytics APIs, and the modal's font. Without a project id none of it.
 */
const WALLETCONNECT_CONNECT_ORIGINS = [
  'wss://relay.walletconnect.org',
  'wss://relay.walletconnect.com',
  'https://relay.walletconnect.org',
  'https://relay.walletconnect.com',
  'https://rpc.walletconnect.org',
  'https://rpc.walletconnect.com',
  'https://api.web3modal.org',
  'https://api.web3modal.com',
  'https://pulse.walletconnect.org',
  'https://pulse.walletconnect.com',
  'https://verify.walletconnect.org',
  'https://verify.walletconnect.com',
];
const WALLETCONNECT_FRAME_ORIGINS = [
  'https://verify.walletconnect.org',
  'https://verify.walletconnect.com',
  'https://secure.walletconnect.org',
  'https://secure.walletconnect.com',
];
const WALLETCONNECT_FONT_ORIGINS = ['https://fonts.reown.com'];

/** Features no page of ours uses; the provider widgets may ask for the camera (KYC) and payments. */
const PERMISSIONS_POLICY = [
  `camera=(${providers})`,
  `payment=(${providers})`,
  'microphone=()',
  'geolocation=()',
  'usb=()',
  'display-capture=()',
].join(', ');

/** Two years, as the HSTS preload list asks. */
const HSTS = 'max-age=63072000; includeSubDomains';

/** Headers for every response, pages, API and static files alike. HSTS only in production (browsers ignore it over http anyway). */
/**
 * @param {{ isProduction: boolean }} options
 * @returns {{ key: string, value: string }[]}
 */
export function staticSecurityHeaders({ isProduction }) {
  return [
    { key: 'X-Content-Type-Options', value: 'nosniff' },
    { key: 'Referrer-Policy', value: 'strict-origin-when-cross-origin' },
    { key: 'Permissions-Policy', value: PERMISSIONS_POLICY },
    // For browsers without CSP frame-ancestors; the CSP below says the same.
    { key: 'X-Frame-Options', value: 'DENY' },
    ...(isProduction ? [{ key: 'Strict-Transport-Security', value: HSTS }] : []),
  ];
}

/** API responses are JSON, never rendered: nothing may load from them, nobody may frame them. */
export const API_CONTENT_SECURITY_POLICY = "default-src 'none'; frame-ancestors 'none'";

/**
 * The pages' policy. Scripts run only with this response's nonce ('strict-dynamic' lets them load
 * Next.js's chunks); styles too, except in development, where the dev overlay injects its own.
 * Images may come from any https origin: merchants' logos and item images are theirs.
 */
/**
 * @param {import('./security-headers.d.mts').PageContentSecurityPolicyOptions} options
 * @returns {string}
 */
export function pageContentSecurityPolicy(options) {
  const { nonce, isDevelopment } = options;
  /** @param {readonly string[]} origins */
  const extra = (origins) => (options.walletConnect ? ` ${origins.join(' ')}` : '');
  const directives = [
    "default-src 'self'",
    // React needs eval in development only, to rebuild server error stacks.
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${isDevelopment ? " 'unsafe-eval'" : ''}`,
    // AppKit's QR modal (WalletConnect) sets inline styles it cannot give our nonce; without them the QR
    // code fills the screen as loose dots. Only on the checkout and only with a project id (proxy.ts).
    `style-src 'self' ${isDevelopment || options.walletConnect ? "'unsafe-inline'" : `'nonce-${nonce}'`}`,
    "img-src 'self' data: blob: https:",
    `font-src 'self'${extra(WALLETCONNECT_FONT_ORIGINS)}`,
    `connect-src 'self'${extra(WALLETCONNECT_CONNECT_ORIGINS)}`,
    `frame-src ${PROVIDER_FRAME_ORIGINS.join(' ')}${extra(WALLETCONNECT_FRAME_ORIGINS)}`,
    "frame-ancestors 'none'",
    "form-action 'self'",
    "base-uri 'none'",
    "object-src 'none'",
    ...(options.upgradeInsecureRequests ? ['upgrade-insecure-requests'] : []),
  ];
  return directives.join('; ');
}
