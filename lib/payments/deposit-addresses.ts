/**
 * Deposit addresses: each charge gets its own address, derived from the service's HD seed
 * (DEPOSIT_HD_SEED) — EVM on the BIP-44 path m/44'/60'/0'/0/index, Solana on m/44'/501'/index'/0'
 * (SLIP-0010, as Phantom derives) — the index taken from a PostgreSQL sequence. Only the index is
 * stored; the key is derived again when the funds are swept. Solana charges also get a Solana Pay
 * reference key, which is how their transactions are found.
 *
 * createCharge is on the hot path, so: the branch key m/44'/60'/0'/0 is derived once per process
 * (only the last, non-hardened step runs per charge), and indexes are drawn from the sequence in
 * blocks of 64 (gaps are harmless: only stored indexes are ever used).
 */
import { createKeyPairSignerFromBytes, type KeyPairSigner } from '@solana/kit';
import { sql } from 'drizzle-orm';
import { toHex } from 'viem';
import { HDKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { CHAINS, type ChainName } from '@/lib/chains/registry';
import type { DbOrTx } from '@/lib/db/client';
import { depositAddresses } from '@/lib/db/schema';
import { requireSecret } from '@/lib/env';
import { newId } from '@/lib/ids';
import { deriveSolanaDepositKey, newReferenceKey } from './solana/deposit-keys';

/** Deposit addresses are watched this long after their charge expires: late payments are still seen. */
export const LATE_PAYMENT_WATCH_MS = 24 * 60 * 60 * 1000;
const INDEX_BLOCK = 64;

let cachedBranch: { seed: string; key: HDKey } | undefined;
const spareIndexes: number[] = [];
let refill: Promise<void> | undefined;

function branchKey(): HDKey {
  const seed = requireSecret('DEPOSIT_HD_SEED');
  if (cachedBranch?.seed !== seed) cachedBranch = { seed, key: HDKey.fromMasterSeed(Buffer.from(seed, 'base64')).derive("m/44'/60'/0'/0") };
  return cachedBranch.key;
}

/** The account of deposit address `derivationIndex` (m/44'/60'/0'/0/index). */
export function depositAccount(derivationIndex: number): PrivateKeyAccount {
  return privateKeyToAccount(toHex(branchKey().deriveChild(derivationIndex).privateKey!));
}

/** The signer of Solana deposit address `derivationIndex` (m/44'/501'/index'/0'), to sweep it. */
export async function solanaDepositSigner(derivationIndex: number): Promise<KeyPairSigner> {
  const key = deriveSolanaDepositKey(Buffer.from(requireSecret('DEPOSIT_HD_SEED'), 'base64'), derivationIndex);
  try {
    return await createKeyPairSignerFromBytes(key.secretKey);
  } finally {
    key.secretKey.fill(0);
  }
}

/**
 * A fresh derivation index. The refill runs on the caller's connection (never a second pool
 * connection: requests holding a transaction while waiting for another connection would exhaust the
 * pool). nextval() ignores rollbacks, so a rolled-back charge only leaves a gap.
 */
async function nextDerivationIndex(tx: DbOrTx): Promise<number> {
  while (spareIndexes.length === 0) {
    refill ??= tx
      .execute<{ index: string }>(sql`select nextval('deposit_derivation_index') as index from generate_series(1, ${INDEX_BLOCK})`)
      .then((rows) => {
        spareIndexes.push(...rows.map((row) => Number(row.index)));
      })
      .finally(() => {
        refill = undefined;
      });
    await refill;
  }
  return spareIndexes.shift()!;
}

/** Allocates the charge's deposit address (and, on Solana, its Solana Pay reference key) in the caller's transaction. */
export async function allocateDepositAddress(
  tx: DbOrTx,
  charge: { id: string; chain: ChainName; expiresAt: Date },
): Promise<string> {
  const family = CHAINS[charge.chain].family;
  const derivationIndex = await nextDerivationIndex(tx);
  const address =
    family === 'evm' ? depositAccount(derivationIndex).address : deriveSolanaDepositKey(Buffer.from(requireSecret('DEPOSIT_HD_SEED'), 'base64'), derivationIndex).address;
  await tx.insert(depositAddresses).values({
    id: newId('depositAddress'),
    chargeId: charge.id,
    chain: charge.chain,
    family,
    address,
    derivationIndex,
    reference: family === 'solana' ? newReferenceKey() : null,
    watchUntil: new Date(charge.expiresAt.getTime() + LATE_PAYMENT_WATCH_MS),
  });
  return address;
}
