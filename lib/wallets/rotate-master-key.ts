/**
 * Master-key rotation. To rotate: set WALLET_MASTER_KEY to the new key, move the old one into
 * WALLET_MASTER_KEYS_PREVIOUS, deploy, run rotateMasterKey() until it reports nothing failed and nothing
 * left on an old key, then remove the old key. Everything sealed with the master key is re-sealed:
 * wallets' data keys (private-key ciphertexts never change, so a row is either on the old or on the new
 * master key and opens with the ring in both states), webhook signing secrets (current and previous),
 * on-ramp providers' access tokens, and the OpenID provider's signing keys.
 *
 * Each wallet is re-sealed in its own short transaction under FOR UPDATE SKIP LOCKED: several runs can go
 * at once (each row is handled by one of them), and a failure leaves every row done so far committed.
 */
import { and, asc, eq, gt, isNotNull, ne, notLike, or } from 'drizzle-orm';
import { getDb } from '@/lib/db/client';
import { onrampAccessTokens, wallets, webhookEndpoints } from '@/lib/db/schema';
import { resealSigningKeys } from '@/lib/oauth/signing-keys';
import { resealProviderToken } from '@/lib/onramp/providers/transak-credentials';
import { openWebhookSecret, sealWebhookSecret } from '@/lib/webhooks/secrets';
import { log } from '@/lib/log';
import { resealDataKey } from './envelope';
import { masterKeyRing, WalletKeyError } from './master-keys';

export interface RotateMasterKeyResult {
  /** The current master key's id: every re-sealed wallet now names it. */
  masterKeyId: string;
  resealed: number;
  /** Locked by a concurrent run, or re-sealed by it meanwhile. */
  skipped: number;
  /** Wallets that could not be opened (their master key is not configured, or their row was tampered with). */
  failed: { walletId: string; masterKeyId: string; reason: string }[];
  /** Webhook endpoints' signing secrets (current and previous) re-sealed, and those that could not be opened. */
  webhookSecrets: { resealed: number; failed: { endpointId: string; reason: string }[] };
  /** On-ramp providers' access tokens re-sealed, and those that could not be opened. */
  providerTokens: { resealed: number; failed: { providerId: string; reason: string }[] };
  /** The OpenID provider's signing keys re-sealed, and those that could not be opened. */
  signingKeys: { resealed: number; failed: { kid: string; reason: string }[] };
}

export async function rotateMasterKey({ batchSize = 100 }: { batchSize?: number } = {}): Promise<RotateMasterKeyResult> {
  const db = getDb();
  const current = masterKeyRing().current.id;
  const result: RotateMasterKeyResult = {
    masterKeyId: current,
    resealed: 0,
    skipped: 0,
    failed: [],
    webhookSecrets: { resealed: 0, failed: [] },
    providerTokens: { resealed: 0, failed: [] },
    signingKeys: { resealed: 0, failed: [] },
  };
  // Walk by id so rows that fail (and stay on an old key) are passed once, not retried forever.
  let after = '';
  for (;;) {
    const batch = await db
      .select({ id: wallets.id })
      .from(wallets)
      .where(and(ne(wallets.masterKeyId, current), gt(wallets.id, after)))
      .orderBy(asc(wallets.id))
      .limit(batchSize);
    if (batch.length === 0) break;
    for (const { id } of batch) {
      try {
        const outcome = await db.transaction(async (tx) => {
          const [row] = await tx
            .select()
            .from(wallets)
            .where(and(eq(wallets.id, id), ne(wallets.masterKeyId, current)))
            .for('update', { skipLocked: true });
          if (!row) return 'skipped' as const;
          await tx.update(wallets).set(resealDataKey(row)).where(eq(wallets.id, row.id));
          return 'resealed' as const;
        });
        result[outcome]++;
      } catch (error) {
        if (!(error instanceof WalletKeyError)) throw error;
        const [row] = await db.select({ masterKeyId: wallets.masterKeyId }).from(wallets).where(eq(wallets.id, id));
        result.failed.push({ walletId: id, masterKeyId: row?.masterKeyId ?? 'unknown', reason: error.message });
      }
    }
    after = batch.at(-1)!.id;
  }
  result.webhookSecrets = await resealWebhookSecrets(current);
  result.providerTokens = await resealProviderTokens(current);
  result.signingKeys = await resealSigningKeys();
  if (result.failed.length) {
    // Field names avoid "key": lib/log.ts redacts those, and these ids are not secret.
    log.warn('wallet master-key rotation left wallets on old keys', {
      currentMaster: current,
      failed: result.failed.length,
      firstFailure: result.failed[0]?.reason,
    });
  }
  return result;
}

/** Endpoint secrets are stored as "<masterKeyId>:<sealed>": those not on the current key are opened and sealed again, one row at a time. */
async function resealWebhookSecrets(current: string): Promise<RotateMasterKeyResult['webhookSecrets']> {
  const outcome: RotateMasterKeyResult['webhookSecrets'] = { resealed: 0, failed: [] };
  const onOldKeys = await getDb()
    .select({ id: webhookEndpoints.id })
    .from(webhookEndpoints)
    .where(
      or(
        notLike(webhookEndpoints.signingSecret, `${current}:%`),
        and(isNotNull(webhookEndpoints.previousSigningSecret), notLike(webhookEndpoints.previousSigningSecret, `${current}:%`)),
      ),
    );
  for (const { id } of onOldKeys) {
    try {
      await getDb().transaction(async (tx) => {
        const [row] = await tx.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, id)).for('update');
        if (!row) return;
        const reseal = (stored: string) =>
          stored.startsWith(`${current}:`) ? stored : sealWebhookSecret(id, openWebhookSecret(id, stored));
        await tx
          .update(webhookEndpoints)
          .set({
            signingSecret: reseal(row.signingSecret),
            previousSigningSecret: row.previousSigningSecret === null ? null : reseal(row.previousSigningSecret),
          })
          .where(eq(webhookEndpoints.id, id));
      });
      outcome.resealed++;
    } catch (error) {
      if (!(error instanceof WalletKeyError)) throw error;
      outcome.failed.push({ endpointId: id, reason: error.message });
    }
  }
  return outcome;
}

async function resealProviderTokens(current: string): Promise<RotateMasterKeyResult['providerTokens']> {
  const outcome: RotateMasterKeyResult['providerTokens'] = { resealed: 0, failed: [] };
  const rows = await getDb()
    .select({ providerId: onrampAccessTokens.providerId })
    .from(onrampAccessTokens)
    .where(or(ne(onrampAccessTokens.masterKeyId, current), ne(onrampAccessTokens.previousMasterKeyId, current)));
  for (const { providerId } of rows) {
    try {
      await getDb().transaction(async (tx) => {
        const [row] = await tx.select().from(onrampAccessTokens).where(eq(onrampAccessTokens.providerId, providerId)).for('update');
        if (!row) return;
        const token = resealProviderToken(row.sealedToken, row.masterKeyId);
        const previous =
          row.previousSealedToken && row.previousMasterKeyId ? resealProviderToken(row.previousSealedToken, row.previousMasterKeyId) : null;
        await tx
          .update(onrampAccessTokens)
          .set({
            sealedToken: token.sealed,
            masterKeyId: token.masterKeyId,
            ...(previous ? { previousSealedToken: previous.sealed, previousMasterKeyId: previous.masterKeyId } : {}),
          })
          .where(eq(onrampAccessTokens.providerId, providerId));
      });
      outcome.resealed++;
    } catch (error) {
      if (!(error instanceof WalletKeyError)) throw error;
      outcome.failed.push({ providerId, reason: error.message });
    }
  }
  return outcome;
}
