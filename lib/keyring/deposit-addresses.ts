/**
 * Deposit addresses: each charge gets its own address (a lease: an EVM address may come back from its
 * merchant's pool, ADR 0038 — insert-charge.ts draws it), derived from the service's HD seed
 * (DEPOSIT_HD_SEED) — EVM on the BIP-44 path m/44'/60'/0'/0/index, Solana on m/44'/501'/index'/0'
 * (SLIP-0010, as Phantom derives) — the index taken from a PostgreSQL sequence. Only the index is
 * stored; the key is derived again when the funds are swept. Solana charges also get a Solana Pay
 * reference key, which is how their transactions are found.
 *
 * createCharge is on the hot path, so: the branch key m/44'/60'/0'/0 is derived once per process;
 * a charge's address comes from the branch's *public* key (BIP-32 CKDpub: one base-point
 * multiplication, no private key, about half the cost of deriving the child key and then its public
 * key); and indexes are drawn from the sequence in blocks of 64 (gaps are harmless: only stored
 * indexes are ever used). The sweep derives the private key (depositAccount); a test checks both agree.
 * Better still, EVM addresses are derived ahead of need on a worker thread (deposit-key-worker.ts)
 * into a reserve this process draws from; when the reserve is empty, the address is derived inline.
 */
import 'server-only';
import { createKeyPairSignerFromBytes, type KeyPairSigner } from '@solana/kit';
import { sql } from 'drizzle-orm';
import { secp256k1 } from '@noble/curves/secp256k1';
import { hmac } from '@noble/hashes/hmac';
import { sha512 } from '@noble/hashes/sha512';
import { bytesToBigInt, toHex, type Address } from 'viem';
import { HDKey, privateKeyToAccount, publicKeyToAddress, type PrivateKeyAccount } from 'viem/accounts';
import { CHAINS, type ChainName } from '@/lib/chains/registry';
import { getDb, type DbOrTx } from '@/lib/db/client';
import { type depositAddresses } from '@/lib/db/schema';
import { env, requireSecret } from '@/lib/env';
import { log } from '@/lib/log';
import { newId } from '@/lib/ids';
import { deriveSolanaDepositKey, newReferenceKey } from './solana-deposit-keys';
import { depositKeyWorkerAvailable, deriveDepositKeysOnWorker, type DerivedDepositKey } from './deposit-key-worker';

/** Deposit addresses are watched this long after their charge expires: late payments are still seen. */
const LATE_PAYMENT_WATCH_MS = 24 * 60 * 60 * 1000;
const INDEX_BLOCK = 64;

interface Branch {
  seed: string;
  key: HDKey;
  /** The branch's public point, decompressed once: CKDpub adds to it. */
  point: InstanceType<typeof secp256k1.ProjectivePoint>;
}
let cachedBranch: Branch | undefined;
const spareIndexes: number[] = [];
let refill: Promise<void> | undefined;

/**
 * EVM deposit keys derived ahead of need (by the worker), for the branch of `seed`, with their
 * addresses (two keccaks each: hash and EIP-55 checksum) when the worker could compute them; else the
 * address is computed when the entry is drawn, so a top-up never holds the event loop for a block.
 */
const reserve: { seed: string; entries: ({ derivationIndex: number } & DerivedDepositKey)[] } = { seed: '', entries: [] };
let reserveTopUp: Promise<void> | undefined;
/**
 * Below this many reserved keys a top-up of RESERVE_BLOCK starts. A top-up takes a few hundred
 * milliseconds on a busy 2-core machine (the worker shares the CPU), so the low-water mark covers
 * about two seconds at the benchmark's rate: charges do not fall back to inline derivation.
 */
const RESERVE_LOW_WATER = 1024;
const RESERVE_BLOCK = 1024;

function branch(): Branch {
  const seed = requireSecret('DEPOSIT_HD_SEED');
  if (cachedBranch?.seed !== seed) {
    const key = HDKey.fromMasterSeed(Buffer.from(seed, 'base64')).derive("m/44'/60'/0'/0");
    cachedBranch = { seed, key, point: secp256k1.ProjectivePoint.fromHex(key.publicKey!) };
  }
  return cachedBranch;
}

/** The account of deposit address `derivationIndex` (m/44'/60'/0'/0/index): its private key, to sweep it. */
export function depositAccount(derivationIndex: number): PrivateKeyAccount {
  return privateKeyToAccount(toHex(branch().key.deriveChild(derivationIndex).privateKey!));
}

/**
 * The address of deposit account `derivationIndex`, by BIP-32 public derivation (CKDpub):
 * IL = HMAC-SHA512(chain code, compressed branch public key ‖ index)[0..32], child point = IL·G + branch point.
 */
export function depositEvmAddress(derivationIndex: number): Address {
  if (!Number.isInteger(derivationIndex) || derivationIndex < 0 || derivationIndex >= 2 ** 31) {
    throw new Error(`deposit derivation index ${derivationIndex} is not a non-hardened BIP-32 index`);
  }
  const { key, point } = branch();
  const data = new Uint8Array(37);
  data.set(key.publicKey!, 0);
  new DataView(data.buffer).setUint32(33, derivationIndex, false);
  const tweak = bytesToBigInt(hmac(sha512, key.chainCode!, data).subarray(0, 32));
  // BIP-32: an out-of-range tweak or the point at infinity means "skip this index" (probability < 2^-127).
  if (tweak === 0n || tweak >= secp256k1.CURVE.n) throw new Error(`deposit derivation index ${derivationIndex} is invalid (BIP-32)`);
  const child = secp256k1.ProjectivePoint.BASE.multiply(tweak).add(point);
  return publicKeyToAddress(toHex(child.toRawBytes(false)));
}

/** The signer of Solana deposit address `derivationIndex` (m/44'/501'/index'/0'), to sweep it. */
export async function solanaDepositSigner(derivationIndex: number): Promise<KeyPairSigner> {
  const key = deriveSolanaDepositKey(depositSeedBytes(), derivationIndex);
  try {
    return await createKeyPairSignerFromBytes(key.secretKey);
  } finally {
    key.secretKey.fill(0);
  }
}

/**
 * Keeps the reserve of pre-derived EVM addresses topped up, in the background: a block of indexes from
 * the sequence on a pool connection of its own (the caller holds nothing while it waits), public
 * keys from the worker thread; addresses when drawn.
 */
function topUpReserve(): void {
  if (reserveTopUp || !depositKeyWorkerAvailable()) return;
  const { seed, key } = branch();
  if (reserve.seed !== seed) reserve.entries = [];
  reserve.seed = seed;
  if (reserve.entries.length >= RESERVE_LOW_WATER) return;
  reserveTopUp = (async () => {
    const indexes = await drawDerivationIndexes(getDb(), RESERVE_BLOCK);
    const derived = await deriveDepositKeysOnWorker(
      { privateKey: key.privateKey!, chainCode: key.chainCode!, publicKey: key.publicKey! },
      indexes,
    );
    if (reserve.seed !== seed) return;
    indexes.forEach((derivationIndex, i) => {
      const child = derived[i];
      if (child) reserve.entries.push({ derivationIndex, ...child });
    });
  })()
    .catch((error: unknown) => {
      // Charges derive inline meanwhile; the next top-up tries again (or never, if the worker is gone).
      log.warn('deposit address reserve top-up failed', { error });
    })
    .finally(() => {
      reserveTopUp = undefined;
    });
}

/** An EVM deposit address: from the reserve, else derived here. */
async function nextEvmDepositAddress(tx: DbOrTx): Promise<{ derivationIndex: number; address: Address }> {
  topUpReserve();
  const reserved = reserve.seed === requireSecret('DEPOSIT_HD_SEED') ? reserve.entries.shift() : undefined;
  if (reserved)
    return { derivationIndex: reserved.derivationIndex, address: reserved.address ?? publicKeyToAddress(toHex(reserved.publicKey)) };
  const derivationIndex = await nextDerivationIndex(tx);
  return { derivationIndex, address: depositEvmAddress(derivationIndex) };
}

/** `count` fresh indexes from the sequence (nextval() ignores rollbacks: an unused index is a harmless gap). */
async function drawDerivationIndexes(db: DbOrTx, count: number): Promise<number[]> {
  const rows = await db.execute<{ index: string }>(
    sql`select nextval('deposit_derivation_index') as index from generate_series(1, ${count})`,
  );
  return rows.map((row) => Number(row.index));
}

/**
 * A fresh derivation index. The refill runs on the caller's connection (never a second pool
 * connection: requests holding a transaction while waiting for another connection would exhaust the
 * pool). nextval() ignores rollbacks, so a rolled-back charge only leaves a gap.
 */
async function nextDerivationIndex(tx: DbOrTx): Promise<number> {
  while (spareIndexes.length === 0) {
    refill ??= drawDerivationIndexes(tx, INDEX_BLOCK)
      .then((indexes) => {
        spareIndexes.push(...indexes);
      })
      .finally(() => {
        refill = undefined;
      });
    await refill;
  }
  return spareIndexes.shift()!;
}

async function nextSolanaDepositAddress(tx: DbOrTx): Promise<{ derivationIndex: number; address: string }> {
  const derivationIndex = await nextDerivationIndex(tx);
  return { derivationIndex, address: deriveSolanaDepositKey(depositSeedBytes(), derivationIndex).address };
}

function depositSeedBytes(): Buffer {
  return Buffer.from(requireSecret('DEPOSIT_HD_SEED'), 'base64');
}

/** For tests: how many pre-derived addresses wait, and a promise for the top-up under way. */
export function depositAddressReserve(): { size: number; topUp: Promise<void> | undefined } {
  return { size: reserve.entries.length, topUp: reserveTopUp };
}

/**
 * The deposit address row of a new charge (and, on Solana, its Solana Pay reference key): the caller
 * inserts it with the charge, in the same statement or transaction (lib/charges/insert-charge.ts).
 */
export async function newDepositAddress(
  tx: DbOrTx,
  charge: { id: string; chain: ChainName; expiresAt: Date },
): Promise<
  typeof depositAddresses.$inferInsert & {
    family: 'evm' | 'solana';
    reference: string | null;
    watchUntil: Date;
    reuseFreedBefore: Date | null;
  }
> {
  const family = CHAINS[charge.chain].family;
  const config = env();
  const { derivationIndex, address } = family === 'evm' ? await nextEvmDepositAddress(tx) : await nextSolanaDepositAddress(tx);
  return {
    id: newId('depositAddress'),
    chargeId: charge.id,
    chain: charge.chain,
    family,
    address,
    derivationIndex,
    reference: family === 'solana' ? newReferenceKey() : null,
    watchUntil: new Date(charge.expiresAt.getTime() + LATE_PAYMENT_WATCH_MS),
    // EVM only: a Solana charge's reference key is per charge anyway, and its addresses cost nothing to create.
    reuseFreedBefore: family === 'evm' && config.DEPOSIT_ADDRESS_REUSE ? new Date(Date.now() - config.DEPOSIT_ADDRESS_REUSE_AFTER) : null,
  };
}
