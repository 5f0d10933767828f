'use server';

import { revalidatePath } from 'next/cache';
import { formError, type FormState } from '@/lib/auth/form-state';
import { currentMemberActor } from '@/lib/merchants/member-actor';
import { stepUpFromForm } from '@/lib/accounts/step-up-form';
import { changeMemberRole, inviteMember, removeMember, revokeInvitation } from '@/lib/merchants/members';

const PAGE = '/dashboard/settings/members';

export async function inviteMemberAction(_state: FormState, form: FormData): Promise<FormState> {
  const email = String(form.get('email') ?? '');
  const role = String(form.get('role') ?? '');
  try {
    await inviteMember({ ...(await currentMemberActor()), email, role, stepUp: stepUpFromForm(form) });
    revalidatePath(PAGE);
    return { notice: `Invitation sent to ${email.trim().toLowerCase()}.` };
  } catch (error) {
    return formError(error, { email, role });
  }
}

export async function changeRoleAction(_state: FormState, form: FormData): Promise<FormState> {
  try {
    await changeMemberRole({
      ...(await currentMemberActor()),
      memberUserId: String(form.get('userId') ?? ''),
      role: String(form.get('role') ?? ''),
      stepUp: stepUpFromForm(form),
    });
    revalidatePath(PAGE);
    return { notice: 'Role changed.' };
  } catch (error) {
    return formError(error);
  }
}

export async function removeMemberAction(_state: FormState, form: FormData): Promise<FormState> {
  try {
    await removeMember({ ...(await currentMemberActor()), memberUserId: String(form.get('userId') ?? '') });
    revalidatePath(PAGE);
    return { notice: 'Member removed.' };
  } catch (error) {
    return formError(error);
  }
}

export async function revokeInvitationAction(_state: FormState, form: FormData): Promise<FormState> {
  try {
    await revokeInvitation({ ...(await currentMemberActor()), invitationId: String(form.get('invitationId') ?? '') });
    revalidatePath(PAGE);
    return { notice: 'Invitation revoked.' };
  } catch (error) {
    return formError(error);
  }
}
