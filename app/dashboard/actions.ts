'use server';
import { revalidatePath } from 'next/cache';
import { memberAction } from '@/lib/api/server-actions';
import { requestBusinessVerification } from '@/lib/merchants/request-business-verification';

export const requestVerificationAction = memberAction({}, async ({ actor }) => {
  await requestBusinessVerification({ ctx: actor });
  revalidatePath('/dashboard');
  return { notice: 'Verification requested. Support will contact you.' };
});
