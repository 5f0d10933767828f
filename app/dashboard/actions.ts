'use server';
import { revalidatePath } from 'next/cache';
import { formError, type FormState } from '@/lib/auth/form-state';
import { requireUserForAction } from '@/lib/auth/session';
import { AppError } from '@/lib/errors';
import { findMerchantOfUser, requestBusinessVerification } from '@/lib/merchants/become-merchant';

export async function requestVerificationAction(_state: FormState, _form: FormData): Promise<FormState> {
  try {
    const user = await requireUserForAction();
    const membership = await findMerchantOfUser(user.id);
    if (!membership) throw new AppError('not_found', 'This account is not a merchant yet.');
    if (membership.role !== 'owner' && membership.role !== 'admin') throw new AppError('forbidden', 'Only owners and admins can request verification.');
    await requestBusinessVerification({ merchantId: membership.merchant.id });
    revalidatePath('/dashboard');
    return { notice: 'Verification requested. Support will contact you.' };
  } catch (error) {
    return formError(error);
  }
}
