'use server';

import { revalidatePath } from 'next/cache';
import { formField, memberAction } from '@/lib/api/server-actions';
import { changeMemberRole } from '@/lib/merchants/change-member-role';
import { inviteMember } from '@/lib/merchants/invite-member';
import { removeMember } from '@/lib/merchants/remove-member';
import { revokeInvitation } from '@/lib/merchants/revoke-invitation';

const PAGE = '/dashboard/settings/members';

export const inviteMemberAction = memberAction(
  { values: (form) => ({ email: formField(form, 'email'), role: formField(form, 'role') }) },
  async ({ actor, stepUp }, { values: { email, role } }) => {
    await inviteMember({ ...actor, email, role, stepUp });
    revalidatePath(PAGE);
    return { notice: `Invitation sent to ${email.trim().toLowerCase()}.` };
  },
);

export const changeRoleAction = memberAction({}, async ({ actor, stepUp }, { form }) => {
  await changeMemberRole({ ...actor, memberUserId: formField(form, 'userId'), role: formField(form, 'role'), stepUp });
  revalidatePath(PAGE);
  return { notice: 'Role changed.' };
});

export const removeMemberAction = memberAction({}, async ({ actor }, { form }) => {
  await removeMember({ ...actor, memberUserId: formField(form, 'userId') });
  revalidatePath(PAGE);
  return { notice: 'Member removed.' };
});

export const revokeInvitationAction = memberAction({}, async ({ actor }, { form }) => {
  await revokeInvitation({ ...actor, invitationId: formField(form, 'invitationId') });
  revalidatePath(PAGE);
  return { notice: 'Invitation revoked.' };
});
