/**
 * Derives deposit public keys (BIP-32, last non-hardened step) on a worker thread, so the secp256k1
 * multiplication — a third of a millisecond each on this machine — runs beside the event loop instead
 * of on it. The worker's code is a string here, so it needs no bundling; it loads @noble/curves and viem
 * from node_modules (resolved from the working directory, the project root) when it can:
 *  - keys by public derivation (CKDpub: IL·G + the branch point, IL = HMAC-SHA512(chain code, branch
 *    public key ‖ index)), as depositEvmAddress does inline, with one field inversion for the whole block
 *    instead of one per key (Montgomery's trick), and a larger precomputed table for G: about a third less
 *    worker CPU per charge than OpenSSL's ECDH on this machine (docs/development.md, bench:api). Both
 *    multiplications are constant-time.
 *    Where @noble/curves cannot be loaded, Node's built-in crypto (OpenSSL ECDH, CKDpriv) derives them.
 *  - addresses (two keccaks each: hash and EIP-55 checksum), which cost the event loop about 0.06 ms per
 *    charge otherwise. Where viem cannot be loaded, the worker returns keys only and the caller hashes.
 * deposit-addresses.ts keeps a reserve filled through it and derives inline whenever the reserve or the
 * worker is not there.
 */
import { Worker } from 'node:worker_threads';
import type { Address } from 'viem';

const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { createECDH, createHmac } = require('node:crypto');
const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
let publicKeyToAddress = null;
try {
  ({ publicKeyToAddress } = require('viem/accounts'));
} catch {
  // not resolvable from here: the caller computes addresses
}
let Point = null;
try {
  const { secp256k1 } = require('@noble/curves/secp256k1');
  // Windows of 10 bits for G (the library's default is 8): 13 % less per multiplication for 6 MB and
  // 0.1 s once, in this thread only.
  secp256k1.utils.precompute(10, secp256k1.ProjectivePoint.BASE);
  Point = secp256k1.ProjectivePoint;
} catch {
  // not resolvable from here: OpenSSL derives the keys
}
/** IL of BIP-32 for each index (null for the ≈2^-127 invalid ones). */
function tweaks(chainCode, publicKey, indexes) {
  const data = Buffer.alloc(37);
  Buffer.from(publicKey).copy(data, 0);
  return indexes.map((index) => {
    data.writeUInt32BE(index, 33);
    const tweak = BigInt('0x' + createHmac('sha512', Buffer.from(chainCode)).update(data).digest().subarray(0, 32).toString('hex'));
    return tweak === 0n || tweak >= N ? null : tweak;
  });
}
/** CKDpub: child point = IL·G + branch point, made affine together (one inversion for the block). */
function publicDerivation(chainCode, publicKey, indexes) {
  const branch = Point.fromHex(Buffer.from(publicKey).toString('hex'));
  const points = tweaks(chainCode, publicKey, indexes).map((tweak) => {
    if (tweak === null) return null;
    const child = Point.BASE.multiply(tweak).add(branch);
    return child.equals(Point.ZERO) ? null : child;
  });
  const valid = points.filter((point) => point !== null);
  const affine = valid.length ? Point.normalizeZ(valid) : [];
  let next = 0;
  return points.map((point) => (point === null ? null : Buffer.from(affine[next++].toRawBytes(false))));
}
/** CKDpriv: child key = parent key + IL, its public key by OpenSSL. */
function privateDerivation(privateKey, chainCode, publicKey, indexes) {
  const parent = BigInt('0x' + Buffer.from(privateKey).toString('hex'));
  const ecdh = createECDH('secp256k1');
  return tweaks(chainCode, publicKey, indexes).map((tweak) => {
    if (tweak === null) return null;
    const child = (parent + tweak) % N;
    if (child === 0n) return null;
    ecdh.setPrivateKey(Buffer.from(child.toString(16).padStart(64, '0'), 'hex'));
    return ecdh.getPublicKey();
  });
}
parentPort.on('message', ({ id, privateKey, chainCode, publicKey, indexes, openssl }) => {
  try {
    const publicKeys = Point && !openssl
      ? publicDerivation(chainCode, publicKey, indexes)
      : privateDerivation(privateKey, chainCode, publicKey, indexes);
    const addresses = publicKeyToAddress ? publicKeys.map((key) => key && publicKeyToAddress('0x' + key.toString('hex'))) : null;
    parentPort.postMessage({ id, publicKeys, addresses });
  } catch (error) {
    parentPort.postMessage({ id, error: String(error && error.message || error) });
  }
});
`;

export interface BranchKeyMaterial {
  privateKey: Uint8Array;
  chainCode: Uint8Array;
  /** Compressed (33 bytes). */
  publicKey: Uint8Array;
}

interface WorkerState {
  worker?: Worker;
  broken: boolean;
  nextId: number;
  waiting: Map<number, { resolve: (keys: (DerivedDepositKey | null)[]) => void; reject: (error: Error) => void }>;
}

const globalForWorker = globalThis as unknown as { __chargeportDepositKeyWorker?: WorkerState };

function state(): WorkerState {
  globalForWorker.__chargeportDepositKeyWorker ??= { broken: false, nextId: 0, waiting: new Map() };
  return globalForWorker.__chargeportDepositKeyWorker;
}

function failAll(current: WorkerState, error: Error): void {
  current.broken = true;
  current.worker = undefined;
  for (const pending of current.waiting.values()) pending.reject(error);
  current.waiting.clear();
}

function worker(): Worker | undefined {
  const current = state();
  if (current.broken) return undefined;
  if (!current.worker) {
    try {
      const started = new Worker(WORKER_SOURCE, { eval: true });
      started.unref(); // never keeps a process (CLI, tests) alive
      started.on(
        'message',
        (message: { id: number; publicKeys?: (Uint8Array | null)[]; addresses?: (string | null)[] | null; error?: string }) => {
          const pending = current.waiting.get(message.id);
          current.waiting.delete(message.id);
          if (!pending) return;
          if (message.publicKeys) {
            pending.resolve(
              message.publicKeys.map((key, i) =>
                key ? { publicKey: new Uint8Array(key), address: (message.addresses?.[i] ?? undefined) as Address | undefined } : null,
              ),
            );
          } else pending.reject(new Error(`deposit key worker: ${message.error}`));
        },
      );
      started.on('error', (error) => failAll(current, error));
      started.on('exit', () => failAll(current, new Error('deposit key worker exited')));
      current.worker = started;
    } catch {
      current.broken = true;
      return undefined;
    }
  }
  return current.worker;
}

/** False once the worker could not start or died: callers derive inline from then on. */
export function depositKeyWorkerAvailable(): boolean {
  return !state().broken;
}

/** A derived child: its uncompressed (65-byte) public key, and its EIP-55 address when the worker could compute it. */
export interface DerivedDepositKey {
  publicKey: Uint8Array;
  address?: Address;
}

/**
 * Children `indexes` of the branch; null for the (≈2^-127) invalid ones. `openssl` (tests) takes the path
 * used where @noble/curves cannot be loaded.
 */
export function deriveDepositKeysOnWorker(
  branchKey: BranchKeyMaterial,
  indexes: readonly number[],
  options: { openssl?: boolean } = {},
): Promise<(DerivedDepositKey | null)[]> {
  const target = worker();
  if (!target) return Promise.reject(new Error('deposit key worker unavailable'));
  const current = state();
  const id = current.nextId++;
  return new Promise((resolve, reject) => {
    current.waiting.set(id, { resolve, reject });
    target.postMessage({ id, ...branchKey, indexes, openssl: options.openssl === true });
  });
}
