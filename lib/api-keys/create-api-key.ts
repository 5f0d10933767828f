import { eq } from 'drizzle-orm';
import { getDb, type DbOrTx } from '@/lib/db/client';
import { apiKeys, merchants, type ApiKeyKind, type ApiKeyMode, type Merchant } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';
import { isVerifiedForLive } from '@/lib/merchants/verification';
import { newId } from '@/lib/ids';
import { generateApiKey } from './key-material';

export interface CreatedApiKey {
  id: string;
  mode: ApiKeyMode;
  kind: ApiKeyKind;
  /** Shown once: only its hash is stored. */
  plaintext: string;
}

/** Production keys only for a merchant whose business verification covers its current name. */
export function assertMayIssueLiveKeys(merchant: Merchant): void {
  if (isVerifiedForLive(merchant)) return;
  throw new AppError(
    'verification_required',
    merchant.verifiedAt
      ? 'Your business name changed after verification: support reviews it again before new production keys are issued (existing keys keep working).'
      : 'Production keys are issued only to merchants that completed business verification.',
  );
}

/** Issue a key. Production (live) keys only for a merchant that completed business verification. */
export async function createApiKey(input: {
  merchantId: string;
  mode: ApiKeyMode;
  kind?: ApiKeyKind;
  name?: string;
  /** Publishable keys: the browser origins and redirect origins they allow (lib/api-keys/publishable-origins.ts). */
  allowedOrigins?: string[];
  allowedRedirectOrigins?: string[];
  tx?: DbOrTx;
}): Promise<CreatedApiKey> {
  const db = input.tx ?? getDb();
  const [merchant] = await db.select().from(merchants).where(eq(merchants.id, input.merchantId));
  if (!merchant) throw new AppError('not_found', `No merchant ${input.merchantId}.`);
  if (input.mode === 'live') assertMayIssueLiveKeys(merchant);
  const kind = input.kind ?? 'secret';
  const material = generateApiKey(input.mode, kind);
  const id = newId('apiKey');
  await db.insert(apiKeys).values({
    id,
    merchantId: merchant.id,
    mode: input.mode,
    kind,
    name: input.name ?? (kind === 'publishable' ? 'Publishable' : 'Default'),
    hash: material.hash,
    displayPrefix: material.displayPrefix,
    allowedOrigins: kind === 'publishable' ? (input.allowedOrigins ?? []) : [],
    allowedRedirectOrigins: kind === 'publishable' ? (input.allowedRedirectOrigins ?? []) : [],
  });
  return { id, mode: input.mode, kind, plaintext: material.plaintext };
}
