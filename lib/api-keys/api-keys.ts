/**
 * The dashboard's API Keys tab: list, create, roll and revoke, as a member whose role allows it
 * (lib/merchants/permissions.ts), each action audited in its transaction.
 *
 *  - A key's plaintext is returned once, at creation or roll; only its hash is stored.
 *  - Live (production) keys need a verified merchant (createApiKey enforces it).
 *  - Roll: a new key with the same mode, kind and name; the old one keeps working for the overlap
 *    (none, 1 h, 24 h or 7 days: `revoked_at` set in the future) so deployments can switch without
 *    downtime, as Stripe's roll does.
 *  - The test key cannot be left without a working secret key: revoking the last one is refused
 *    (roll it instead), so the "test key always" promise holds.
 *  - Revoking a production key needs its name or "revoke" typed (revokeKeyForMember).
 *  - A new production key (created or rolled) needs the member's PIN or a passkey (step-up) and
 *    two-factor sign-in turned on, and every owner is e-mailed: a production key moves real money.
 */
import { and, asc, eq, gt, isNull, ne, or } from 'drizzle-orm';
import { recordAudit } from '@/lib/audit/record-audit';
import { getDb } from '@/lib/db/client';
import { apiKeys, type ApiKey, type ApiKeyKind, type ApiKeyMode } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';
import { verifyStepUp, type StepUpProof } from '@/lib/accounts/step-up';
import { requireSecondFactor } from '@/lib/accounts/two-factor/second-factor';
import { notifyOwners } from '@/lib/merchants/notify-owners';
import { authorizeMember } from '@/lib/merchants/permissions';
import { assertMayIssueLiveKeys, createApiKey, type CreatedApiKey } from './create-api-key';
import { forgetMerchantCredentials } from '@/lib/merchants/credential-cache';

const ROLL_OVERLAPS_HOURS = [0, 1, 24, 168] as const;
export type RollOverlapHours = (typeof ROLL_OVERLAPS_HOURS)[number];

export interface ApiKeyListing {
  id: string;
  name: string;
  kind: ApiKeyKind;
  mode: ApiKeyMode;
  displayPrefix: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  /** The dated API version the key's first request pinned it to (lib/api/resolve-api-version.ts); null before it. */
  apiVersion: string | null;
  /** Set for a revoked key, or in the future for a rolled key still in its overlap. */
  expiresAt: Date | null;
  /** Publishable keys: the browser origins (CORS) and the redirect origins of their charges. */
  allowedOrigins: string[];
  allowedRedirectOrigins: string[];
}

interface Actor {
  userId: string;
  merchantId: string;
  ip?: string | null;
}

/** Keys of one mode that still work (or will until their overlap ends), oldest first. */
export async function listApiKeys(input: Actor & { mode: ApiKeyMode }, now = new Date()): Promise<ApiKeyListing[]> {
  await authorizeMember(getDb(), { ...input, permission: 'dashboard.view' });
  const rows = await getDb()
    .select()
    .from(apiKeys)
    .where(
      and(
        eq(apiKeys.merchantId, input.merchantId),
        eq(apiKeys.mode, input.mode),
        or(isNull(apiKeys.revokedAt), gt(apiKeys.revokedAt, now)),
      ),
    )
    .orderBy(asc(apiKeys.createdAt));
  return rows.map(toListing);
}

/** A production key needs the second factor enrolled and a step-up; checked before anything is written. */
async function confirmProductionKey(input: Actor & { stepUp?: StepUpProof }): Promise<void> {
  const { merchant } = await authorizeMember(getDb(), { ...input, permission: 'api_keys.manage' });
  assertMayIssueLiveKeys(merchant);
  const attempt = { action: 'production_key_create', merchantId: input.merchantId, mode: 'live', ip: input.ip } as const;
  await requireSecondFactor(input.userId, 'create production keys', { mode: 'live', attempt });
  await verifyStepUp({ userId: input.userId, proof: input.stepUp ?? {}, mode: 'live', attempt });
}

async function notifyNewProductionKey(input: Actor, what: string): Promise<void> {
  await notifyOwners({
    merchantId: input.merchantId,
    actorUserId: input.userId,
    ip: input.ip,
    subject: 'new production API key',
    text: what,
  });
}

export async function createKeyForMember(
  input: Actor & { mode: ApiKeyMode; kind: ApiKeyKind; name: string; stepUp?: StepUpProof },
): Promise<CreatedApiKey> {
  const name = input.name.trim();
  if (!name || name.length > 60)
    throw new AppError('invalid_request', 'Give the key a name of 1 to 60 characters, e.g. "Game server".', { param: 'name' });
  if (input.mode === 'live') await confirmProductionKey(input);
  const key = await getDb().transaction(async (tx) => {
    const actor = await authorizeMember(tx, { ...input, permission: 'api_keys.manage' });
    const created = await createApiKey({ merchantId: input.merchantId, mode: input.mode, kind: input.kind, name, tx });
    await recordAudit(tx, {
      actor,
      action: 'api_key.create',
      targetId: created.id,
      mode: input.mode,
      data: { kind: input.kind, name },
      ip: input.ip,
    });
    return created;
  });
  if (input.mode === 'live') await notifyNewProductionKey(input, `A production ${input.kind} key named “${name}” was created.`);
  return key;
}

export async function rollKeyForMember(
  input: Actor & { keyId: string; overlapHours: RollOverlapHours; stepUp?: StepUpProof },
  now = new Date(),
): Promise<CreatedApiKey> {
  if (!ROLL_OVERLAPS_HOURS.includes(input.overlapHours)) {
    throw new AppError('invalid_request', `The overlap is one of ${ROLL_OVERLAPS_HOURS.join(', ')} hours.`, { param: 'overlapHours' });
  }
  const [current] = await getDb()
    .select({ mode: apiKeys.mode, name: apiKeys.name })
    .from(apiKeys)
    .where(and(eq(apiKeys.id, input.keyId), eq(apiKeys.merchantId, input.merchantId)));
  // Checked again under the lock below; a key of another merchant is not_found there.
  if (current?.mode === 'live') await confirmProductionKey(input);
  const created = await getDb()
    .transaction(async (tx) => {
      const actor = await authorizeMember(tx, { ...input, permission: 'api_keys.manage' });
      const old = await liveKeyOfMerchant(tx, input.merchantId, input.keyId, now);
      if (old.mode === 'live' && current?.mode !== 'live')
        throw new AppError('not_found', `No active key ${input.keyId}.`, { param: 'keyId' });
      const created = await createApiKey({ merchantId: input.merchantId, mode: old.mode, kind: old.kind, name: old.name, tx });
      const expiresAt = new Date(now.getTime() + input.overlapHours * 3_600_000);
      await tx.update(apiKeys).set({ revokedAt: expiresAt, updatedAt: now }).where(eq(apiKeys.id, old.id));
      await recordAudit(tx, {
        actor,
        action: 'api_key.roll',
        targetId: old.id,
        mode: old.mode,
        data: { newKeyId: created.id, oldKeyExpiresAt: expiresAt.toISOString() },
        ip: input.ip,
      });
      return created;
    })
    .finally(() => forgetMerchantCredentials(input.merchantId));
  if (created.mode === 'live')
    await notifyNewProductionKey(input, `The production key “${current!.name}” was rolled: a new key replaces it.`);
  return created;
}

/**
 * Revoking a production key stops a live integration at once, so it must be confirmed by typing the
 * key's name or "revoke", in any case (the dashboard's dialog sends it as `confirmation`).
 */
export async function revokeKeyForMember(input: Actor & { keyId: string; confirmation?: string }, now = new Date()): Promise<void> {
  await getDb().transaction(async (tx) => {
    const actor = await authorizeMember(tx, { ...input, permission: 'api_keys.manage' });
    const key = await liveKeyOfMerchant(tx, input.merchantId, input.keyId, now);
    const typed = input.confirmation?.trim().toLowerCase();
    if (key.mode === 'live' && typed !== key.name.toLowerCase() && typed !== 'revoke') {
      throw new AppError('invalid_request', `To revoke a production key, type its name (“${key.name}”) or "revoke".`, { param: 'confirm' });
    }
    if (key.kind === 'secret' && key.mode === 'test') {
      const others = await tx
        .select({ id: apiKeys.id })
        .from(apiKeys)
        .where(
          and(
            eq(apiKeys.merchantId, input.merchantId),
            eq(apiKeys.mode, 'test'),
            eq(apiKeys.kind, 'secret'),
            ne(apiKeys.id, key.id),
            isNull(apiKeys.revokedAt),
          ),
        );
      if (others.length === 0)
        throw new AppError('invalid_request', 'This is your only test secret key: roll it instead of revoking it.', { param: 'keyId' });
    }
    await tx.update(apiKeys).set({ revokedAt: now, updatedAt: now }).where(eq(apiKeys.id, key.id));
    await recordAudit(tx, { actor, action: 'api_key.revoke', targetId: key.id, mode: key.mode, ip: input.ip });
  });
  // Other instances hear of it by NOTIFY (migration 0019); this one forgets now.
  forgetMerchantCredentials(input.merchantId);
}

async function liveKeyOfMerchant(tx: Parameters<typeof authorizeMember>[0], merchantId: string, keyId: string, now: Date): Promise<ApiKey> {
  const [key] = await tx
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.id, keyId), eq(apiKeys.merchantId, merchantId)))
    .for('update');
  if (!key || (key.revokedAt && key.revokedAt <= now)) throw new AppError('not_found', `No active key ${keyId}.`, { param: 'keyId' });
  if (key.revokedAt)
    throw new AppError('invalid_request', 'This key was already rolled and expires soon; roll or revoke its replacement.', {
      param: 'keyId',
    });
  return key;
}

function toListing(row: ApiKey): ApiKeyListing {
  return {
    id: row.id,
    name: row.name,
    kind: row.kind,
    mode: row.mode,
    displayPrefix: row.displayPrefix,
    allowedOrigins: row.allowedOrigins,
    allowedRedirectOrigins: row.allowedRedirectOrigins,
    createdAt: row.createdAt,
    lastUsedAt: row.lastUsedAt,
    apiVersion: row.apiVersion,
    expiresAt: row.revokedAt,
  };
}
