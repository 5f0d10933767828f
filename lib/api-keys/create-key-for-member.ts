/**
 * Creating a key from the API Keys tab (`api_keys.manage`): the key and its audit entry commit
 * together; its plaintext is returned once, only its hash is stored (create-api-key.ts). A production
 * key needs a verified merchant, two-factor sign-in and a step-up (confirm-production-key.ts), and
 * every owner is e-mailed of it (notify-new-production-key.ts).
 */
import type { StepUpProof } from '@/lib/accounts/step-up';
import { recordAudit } from '@/lib/audit/record-audit';
import { getDb } from '@/lib/db/client';
import type { ApiKeyKind, ApiKeyMode } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';
import { authorizeMember, type MemberActor } from '@/lib/merchants/permissions';
import { confirmProductionKey } from './confirm-production-key';
import { createApiKey, type CreatedApiKey } from './create-api-key';
import { notifyNewProductionKey } from './notify-new-production-key';

export async function createKeyForMember(
  input: MemberActor & { mode: ApiKeyMode; kind: ApiKeyKind; name: string; stepUp?: StepUpProof },
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
