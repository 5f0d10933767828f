/**
 * How a PIN is stored: argon2id keyed with the server-side pepper PIN_PEPPER. Six digits are a
 * million guesses, which fall offline under any hash alone; the pepper lives in the configuration,
 * never in the database, so a dump of it gives nothing to guess against. hashPin and matchesPinHash
 * are the two halves of one scheme and must agree: they live together, and the pepper never leaves.
 */
import { hash as argon2Hash, verify as argon2Verify, type Options as Argon2Options } from '@node-rs/argon2';
import { requireSecret } from '@/lib/env';

/**
 * argon2id with OWASP's baseline cost (19 MiB, 2 passes, 1 lane): 10–35 ms here. `algorithm: 2` is
 * Algorithm.Argon2id, a const enum that cannot be imported under isolatedModules.
 */
const ARGON2_OPTIONS: Argon2Options = { algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1 };

function pepper(): Buffer {
  return Buffer.from(requireSecret('PIN_PEPPER'), 'utf8');
}

export async function hashPin(pin: string): Promise<string> {
  return argon2Hash(pin, { ...ARGON2_OPTIONS, secret: pepper() });
}

/** Whether `pin` is the PIN stored as `pinHash` (a hash made with another pepper, or none, is not). */
export async function matchesPinHash(pinHash: string, pin: string): Promise<boolean> {
  return argon2Verify(pinHash, pin, { secret: pepper() });
}
