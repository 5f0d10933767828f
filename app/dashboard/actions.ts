'use server';
import { revalidatePath } from 'next/cache';
import { formError, type FormState } from '@/lib/auth/form-state';
import { requestBusinessVerification } from '@/lib/merchants/become-merchant';
import { currentMemberActor } from '@/lib/merchants/member-actor';

export async function requestVerificationAction(_state: FormState, _form: FormData): Promise<FormState> {
  try {
    await requestBusinessVerification({ ctx: await currentMemberActor() });
    revalidatePath('/dashboard');
    return { notice: 'Verification requested. Support will contact you.' };
  } catch (error) {
    return formError(error);
  }
}
