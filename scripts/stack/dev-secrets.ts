/**
 * Development secrets: generated once into $DATA_DIR/dev-secrets.json and reused, so sessions, codes,
 * PINs and wallet keys keep working across restarts of `npm run dev`. Production never uses this:
 * it must configure AUTH_SECRET, PIN_PEPPER and WALLET_MASTER_KEY (lib/env.ts refuses to start without).
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const NAMES = ['AUTH_SECRET', 'PIN_PEPPER', 'WALLET_MASTER_KEY', 'DEPOSIT_HD_SEED', 'SANDBOX_PROVIDER_SECRET'] as const;

/** Values for the secrets the environment does not set. */
export function ensureDevSecrets(dataDir: string, environment: Record<string, string | undefined>): Record<string, string> {
  const file = path.join(dataDir, 'dev-secrets.json');
  const stored: Record<string, string> = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {};
  let changed = false;
  for (const name of NAMES) {
    if (!stored[name]) {
      stored[name] = randomBytes(32).toString('base64');
      changed = true;
    }
  }
  if (changed) {
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(file, `${JSON.stringify(stored, null, 2)}\n`, { mode: 0o600 });
  }
  return Object.fromEntries(NAMES.filter((name) => !environment[name]).map((name) => [name, stored[name]!]));
}
