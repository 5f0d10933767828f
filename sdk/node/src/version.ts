import { API_VERSION } from './generated/openapi.ts';

/**
 * The package version, sent on every request (`User-Agent: chargeport-node/<version> node/<version>`
 * and `Chargeport-Client: node/<version>`) so the API's logs can tell which SDK asked. Kept equal to
 * package.json's `version` by sdk/test/packages.test.ts.
 */
export const VERSION = '1.0.0';

/** Also `Chargeport-Version`: the API version the generated types describe, whatever the key is pinned to. */
export const SDK_HEADERS: Readonly<Record<string, string>> = {
  'user-agent': `chargeport-node/${VERSION} node/${process.versions.node}`,
  'chargeport-client': `node/${VERSION}`,
  'chargeport-version': API_VERSION,
};
