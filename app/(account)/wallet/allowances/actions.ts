'use server';
import { revalidatePath } from 'next/cache';
import type { FormState } from '@/lib/auth/form-state';
import { formField, userAction } from '@/lib/api/server-actions';
import { revokeSpendingAllowance } from '@/lib/allowances/revoke-spending-allowance';

/** Revoke one of the user's own spending allowances, at once (the next purchase asks for the PIN). */
export const revokeAllowanceAction = userAction<FormState>({}, async ({ user }, { form }) => {
  await revokeSpendingAllowance({ userId: user.id, allowanceId: formField(form, 'allowanceId') });
  revalidatePath('/wallet/allowances');
  return { notice: 'Revoked: purchases from this merchant ask for your PIN again.' };
});
