/**
 * Adds a passkey for a signed-in account (Account → Security): the registration options are issued
 * freely (passkeyRegistrationOptions), but the passkey is stored only when the same call carries a
 * factor-change proof — the PIN or an existing passkey, or the e-mail code for an account with
 * neither (factor-change-proof.ts). The account's address is told. A refused attempt stores nothing.
 */
import 'server-only';
import { z } from 'zod';
import type { Passkey } from '@/lib/db/schema';
import { notifySecurityChange } from '../notify-security-change';
import { verifyFactorChangeProof, type FactorChangeProof } from './factor-change-proof';
import { registerPasskey } from './passkeys';

/**
 * What Account → Security's passkey form sends: a name, the browser's registration answer (JSON text), and
 * the proof fields of FactorProofFields (any may be empty: the proof check says which one it needs).
 */
export const registerPasskeyInputSchema = z.object({
  name: z.string().max(200),
  response: z.string().min(1).max(64_000),
  pin: z.string().max(200).nullish(),
  passkeyResponse: z.string().max(64_000).nullish(),
  emailCode: z.string().max(200).nullish(),
});

export async function addPasskey(input: {
  userId: string;
  name: string;
  response: unknown;
  proof: FactorChangeProof;
  ip?: string | null;
}): Promise<Passkey> {
  await verifyFactorChangeProof({ userId: input.userId, proof: input.proof, attempt: { action: 'passkey_add', ip: input.ip } });
  const passkey = await registerPasskey({ userId: input.userId, name: input.name, response: input.response });
  await notifySecurityChange({
    userId: input.userId,
    change: { kind: 'passkey_added', name: passkey.name },
    ip: input.ip,
    at: passkey.createdAt,
  });
  return passkey;
}
