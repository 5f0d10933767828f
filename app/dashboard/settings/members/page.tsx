import type { Metadata } from 'next';
import { InvitationRow, InviteMemberForm, MemberRow } from '@/components/dashboard/members';
import { listMembers } from '@/lib/merchants/list-members';
import { assignableRoles, canManageMember, roleAllows } from '@/lib/merchants/permissions';
import { requireMember } from '@/lib/merchants/require-member';
import { DataTable } from '@/components/ui/data-table';

export const metadata: Metadata = { title: 'Members' };

export default async function MembersPage() {
  const { user, membership } = await requireMember({ returnTo: '/dashboard/settings/members' });
  const { members, invitations } = await listMembers({ userId: user.id, merchantId: membership.merchant.id });
  const canManage = roleAllows(membership.role, 'members.manage');
  const assignable = assignableRoles(membership.role);
  return (
    <main className="mx-auto flex max-w-5xl flex-col gap-6 px-4 py-8">
      <div>
        <h1 className="text-xl font-semibold">Members</h1>
        <p className="mt-1 text-sm text-slate-600">
          Owners manage everything; admins everything but owners, withdrawals and the audit log; developers API keys, webhooks and tokens;
          viewers read. A merchant always keeps at least one owner.
        </p>
      </div>
      <DataTable
        columns={[{ label: 'Member' }, { label: 'Role' }, { label: 'Actions', srOnly: true }]}
        label="Members and invitations"
        minWidthClass="min-w-[32rem]"
        testId="members"
      >
        {members.map((member) => (
          <MemberRow
            key={member.userId}
            userId={member.userId}
            email={member.email ?? member.userId}
            role={member.role}
            isYou={member.userId === user.id}
            canManage={canManageMember(membership.role, member.role)}
            roles={assignable}
          />
        ))}
        {invitations.map((invitation) => (
          <InvitationRow
            key={invitation.id}
            id={invitation.id}
            email={invitation.email}
            role={invitation.role}
            expiresAt={invitation.expiresAt.toISOString().slice(0, 10)}
            canManage={canManage}
          />
        ))}
      </DataTable>
      {canManage ? (
        <InviteMemberForm roles={assignable} />
      ) : (
        <p className="text-sm text-slate-600">Your role ({membership.role}) cannot invite or change members.</p>
      )}
    </main>
  );
}
