/**
 * The Profile tab: business name (the checkout's and the on-ramp's wallet_label), logo, support e-mail.
 * Owners and admins edit it ('profile.manage'); each change is audited with what changed.
 *
 * Renaming a verified merchant flags it for re-review (lib/merchants/verification.ts): verification
 * vouched for the old name, and a verified merchant could otherwise take any name buyers trust. Support
 * is e-mailed, as for a first verification request.
 */
import { eq } from 'drizzle-orm';
import { z } from 'zod';
import { emailSchema } from '@/lib/accounts/email';
import { recordAudit } from '@/lib/audit/record-audit';
import { getDb } from '@/lib/db/client';
import { merchants, type Merchant } from '@/lib/db/schema';
import { env } from '@/lib/env';
import { AppError } from '@/lib/errors';
import { sendEmail } from '@/lib/notifications/send-email';
import { businessNameSchema } from './schemas';
import { authorizeMember } from './permissions';

const profileSchema = z.object({
  name: businessNameSchema,
  // Shown to every consumer on the checkout: https only, so the page never loads mixed content.
  logoUrl: z
    .string()
    .trim()
    .max(500, 'must be at most 500 characters')
    .refine((value) => value === '' || /^https:\/\/[^\s]+$/.test(value), 'must be an https:// image URL')
    .transform((value) => value || null),
  supportEmail: z
    .string()
    .trim()
    .transform((value) => value || null)
    .pipe(emailSchema.nullable()),
});

export type ProfileInput = z.input<typeof profileSchema>;

export async function updateMerchantProfile(
  input: { userId: string; merchantId: string; ip?: string | null } & ProfileInput,
): Promise<Merchant> {
  const parsed = profileSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const param = String(issue.path[0] ?? 'name');
    const label = { name: 'Business name', logoUrl: 'Logo URL', supportEmail: 'Support e-mail' }[param] ?? param;
    throw new AppError('invalid_request', `${label} ${issue.message}.`, { param });
  }
  const { merchant, reviewNewlyRequired } = await getDb().transaction(async (tx) => {
    const actor = await authorizeMember(tx, { ...input, permission: 'profile.manage' });
    const before = actor.merchant;
    const now = new Date();
    const renamedWhileVerified = before.verifiedAt !== null && parsed.data.name !== before.name;
    const [updated] = await tx
      .update(merchants)
      .set({ ...parsed.data, updatedAt: now, ...(renamedWhileVerified && !before.reviewRequiredAt ? { reviewRequiredAt: now } : {}) })
      .where(eq(merchants.id, input.merchantId))
      .returning();
    const changed = (['name', 'logoUrl', 'supportEmail'] as const).filter((key) => before[key] !== updated![key]);
    if (changed.length) {
      await recordAudit(tx, {
        actor,
        action: 'merchant.update_profile',
        data: {
          ...Object.fromEntries(changed.map((key) => [key, { from: before[key], to: updated![key] }])),
          ...(renamedWhileVerified ? { reviewRequired: true } : {}),
        },
        ip: input.ip,
      });
    }
    return { merchant: updated!, reviewNewlyRequired: renamedWhileVerified && !before.reviewRequiredAt };
  });
  if (reviewNewlyRequired) {
    await sendEmail({
      to: env().SUPPORT_EMAIL,
      subject: `Re-review after a name change: ${merchant.name} (${merchant.id})`,
      text: `The verified merchant ${merchant.id} is now called "${merchant.name}". New production keys and direct transfers wait for your review.\n\nWhen it is done: npm run admin -- merchant verify ${merchant.id}`,
    });
  }
  return merchant;
}
