/**
 * The demo merchant's keys are fixed and published (README, the launcher's output): seeded into a
 * shared or hosted database they would be working keys anyone can use. So `npm run dev` seeds only
 * into the embedded PostgreSQL or one on this machine, unless told otherwise with SEED_DEMO.
 */
import ipaddr from 'ipaddr.js';

/** Why the demo data must not be seeded into this database, or null when it may. */
export function demoSeedRefusal(input: { databaseUrl: string | undefined; seedDemo: boolean | undefined }): string | null {
  if (input.seedDemo === false) return 'Not seeding the demo merchant: SEED_DEMO=false.';
  if (input.seedDemo === true || !input.databaseUrl) return null;
  const host = databaseHost(input.databaseUrl);
  if (host === null || isLocalHost(host)) return null;
  return (
    `Not seeding the demo merchant: DATABASE_URL points at ${host}, not this machine. Its keys are public ` +
    '(README), so anyone could use them against that database. Set SEED_DEMO=true to seed it anyway.'
  );
}

/** The host a postgres:// URL connects to; null for a Unix socket (no host, or `?host=/path`). */
function databaseHost(databaseUrl: string): string | null {
  if (/[?&]host=(\/|%2f)/i.test(databaseUrl)) return null;
  try {
    const host = decodeURIComponent(new URL(databaseUrl).hostname).replace(/^\[|\]$/g, '');
    return host === '' ? null : host;
  } catch {
    return 'an address that is not a URL'; // treated as remote; the URL may hold a password, so it is not echoed
  }
}

function isLocalHost(host: string): boolean {
  const name = host.toLowerCase();
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  return ipaddr.isValid(name) && ipaddr.process(name).range() === 'loopback';
}
