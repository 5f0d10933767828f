/**
 * The package version, sent on every request so the API's logs can tell which SDK asked. Kept
 * equal to package.json's `version` by sdk/test/packages.test.ts.
 */
export const VERSION = '1.0.0';

import { API_VERSION } from './generated/openapi.ts';

/**
 * `Chargeport-Client: web/<version>` and `Chargeport-Version: <the API version the types were generated
 * for>` on every request, so the API answers in the shapes these types describe whatever the key is pinned to. Browsers do not let a page set `User-Agent`
 * (and a custom one would cost a CORS preflight), so it is set only outside a browser
 * (`chargeport-web/<version> node/22.12.0`, or deno/bun).
 */
export function sdkHeaders(inBrowser: boolean): Record<string, string> {
  const headers: Record<string, string> = { 'chargeport-client': `web/${VERSION}`, 'chargeport-version': API_VERSION };
  if (!inBrowser) headers['user-agent'] = `chargeport-web/${VERSION} ${runtime()}`;
  return headers;
}

function runtime(): string {
  const scope = globalThis as { process?: { versions?: Record<string, string | undefined> }; Deno?: { version?: { deno?: string } } };
  const versions = scope.process?.versions;
  if (versions?.bun) return `bun/${versions.bun}`;
  if (scope.Deno?.version?.deno) return `deno/${scope.Deno.version.deno}`;
  if (versions?.node) return `node/${versions.node}`;
  return 'unknown-runtime';
}
