'use server';
import { revalidatePath } from 'next/cache';
import { formError, type FormState } from '@/lib/auth/form-state';
import { requireUserForAction } from '@/lib/auth/session';
import { recordAudit } from '@/lib/audit/record-audit';
import { getDb } from '@/lib/db/client';
import { AppError } from '@/lib/errors';
import { authorizeMember } from '@/lib/merchants/permissions';
import { findMerchantOfUser, requestBusinessVerification } from '@/lib/merchants/become-merchant';

export async function requestVerificationAction(_state: FormState, _form: FormData): Promise<FormState> {
  try {
    const user = await requireUserForAction();
    const membership = await findMerchantOfUser(user.id);
    if (!membership) throw new AppError('not_found', 'This account is not a merchant yet.');
    await getDb().transaction(async (tx) => {
      const actor = await authorizeMember(tx, { userId: user.id, merchantId: membership.merchant.id, permission: 'profile.manage' });
      await recordAudit(tx, { actor, action: 'merchant.request_verification' });
    });
    await requestBusinessVerification({ merchantId: membership.merchant.id });
    revalidatePath('/dashboard');
    return { notice: 'Verification requested. Support will contact you.' };
  } catch (error) {
    return formError(error);
  }
}
