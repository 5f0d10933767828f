/**
 * Derives deposit public keys (BIP-32 CKDpriv, last non-hardened step) on a worker thread, so the
 * secp256k1 multiplication — a third of a millisecond each on this machine — runs beside the event
 * loop instead of on it. The worker's code is a string here, so it needs no bundling: it uses Node's
 * built-in crypto (OpenSSL) for the keys, and viem from node_modules (resolved from the working
 * directory, the project root) for the addresses, whose two keccaks cost the event loop about 0.06 ms
 * per charge otherwise. Where viem cannot be loaded, the worker returns keys only and the caller hashes.
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
parentPort.on('message', ({ id, privateKey, chainCode, publicKey, indexes }) => {
  try {
    const parent = BigInt('0x' + Buffer.from(privateKey).toString('hex'));
    const ecdh = createECDH('secp256k1');
    const data = Buffer.alloc(37);
    Buffer.from(publicKey).copy(data, 0);
    const publicKeys = indexes.map((index) => {
      data.writeUInt32BE(index, 33);
      const tweak = BigInt('0x' + createHmac('sha512', Buffer.from(chainCode)).update(data).digest().subarray(0, 32).toString('hex'));
      if (tweak >= N) return null;
      const child = (parent + tweak) % N;
      if (child === 0n) return null;
      ecdh.setPrivateKey(Buffer.from(child.toString(16).padStart(64, '0'), 'hex'));
      return ecdh.getPublicKey();
    });
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

/** Children `indexes` of the branch; null for the (≈2^-127) invalid ones. */
export function deriveDepositKeysOnWorker(branchKey: BranchKeyMaterial, indexes: readonly number[]): Promise<(DerivedDepositKey | null)[]> {
  const target = worker();
  if (!target) return Promise.reject(new Error('deposit key worker unavailable'));
  const current = state();
  const id = current.nextId++;
  return new Promise((resolve, reject) => {
    current.waiting.set(id, { resolve, reject });
    target.postMessage({ id, ...branchKey, indexes });
  });
}
