'use client';

import { useActionState } from 'react';
import { changeRoleAction, inviteMemberAction, removeMemberAction, revokeInvitationAction } from '@/app/dashboard/settings/members/actions';
import { Button } from '@/components/ui/button';
import { ConfirmAction } from '@/components/ui/confirm-dialog';
import { Field } from '@/components/ui/field';
import { StepUpFields } from '@/components/account/step-up-fields';
import type { FormState } from '@/lib/auth/form-state';
import type { MemberRole } from '@/lib/merchants/permissions';

// The schema module would pull drizzle into the browser bundle: the roles, restated for the picker.
const ALL_ROLES: readonly MemberRole[] = ['owner', 'admin', 'developer', 'viewer'];

function Outcome({ state }: { state: FormState }) {
  if (state.error) {
    return (
      <p role="alert" className="text-xs text-rose-700">
        {state.error.message}
      </p>
    );
  }
  return state.notice ? (
    <p role="status" className="text-xs text-emerald-700">
      {state.notice}
    </p>
  ) : null;
}

export function InviteMemberForm({ roles }: { roles: readonly MemberRole[] }) {
  const [state, action, pending] = useActionState<FormState, FormData>(inviteMemberAction, {});
  return (
    <form
      action={action}
      className="flex max-w-md flex-col gap-3 rounded-xl bg-white p-5 ring-1 ring-slate-200"
      aria-labelledby="invite-heading"
    >
      <h2 id="invite-heading" className="font-semibold">
        Invite a member
      </h2>
      <Field
        label="E-mail"
        name="email"
        type="email"
        required
        defaultValue={state.values?.email}
        error={state.error?.param === 'email' ? state.error.message : undefined}
      />
      <label className="flex flex-col gap-1.5 text-sm font-medium text-slate-800">
        Role
        <select
          name="role"
          defaultValue={state.values?.role ?? 'developer'}
          className="min-h-11 rounded-lg border border-slate-300 bg-white px-3 text-base"
        >
          {roles.map((role) => (
            <option key={role} value={role}>
              {role}
            </option>
          ))}
        </select>
      </label>
      <StepUpFields
        optional
        label="Your PIN (to invite an owner or admin)"
        error={state.error?.param === 'pin' ? state.error.message : undefined}
      />
      <Button type="submit" disabled={pending}>
        {pending ? 'Sending…' : 'Send invitation'}
      </Button>
      {state.error?.param !== 'email' && <Outcome state={state} />}
    </form>
  );
}

export function MemberRow(props: {
  userId: string;
  email: string;
  role: MemberRole;
  isYou: boolean;
  canManage: boolean;
  roles: readonly MemberRole[];
}) {
  const [changed, change, changing] = useActionState<FormState, FormData>(changeRoleAction, {});
  const [removed, remove, removing] = useActionState<FormState, FormData>(removeMemberAction, {});
  return (
    <tr data-testid="member-row">
      <td className="py-3">
        {props.email}
        {props.isYou && <span className="ml-2 text-xs text-slate-500">(you)</span>}
      </td>
      <td className="py-3">
        {props.canManage ? (
          <form action={change} className="flex items-center gap-2">
            <input type="hidden" name="userId" value={props.userId} />
            <select
              name="role"
              defaultValue={props.role}
              aria-label={`Role of ${props.email}`}
              className="rounded border border-slate-300 px-1 py-1 text-sm"
            >
              {ALL_ROLES.map((role) => (
                <option key={role} value={role} disabled={!props.roles.includes(role)}>
                  {role}
                </option>
              ))}
            </select>
            <input
              name="pin"
              type="password"
              inputMode="numeric"
              autoComplete="off"
              placeholder="PIN"
              aria-label="Your PIN (to make someone an owner or admin)"
              className="w-20 rounded border border-slate-300 px-1 py-1 text-xs"
            />
            <Button type="submit" variant="secondary" className="min-h-8 px-2 text-xs" disabled={changing}>
              Save
            </Button>
          </form>
        ) : (
          props.role
        )}
        <Outcome state={changed} />
      </td>
      <td className="py-3 text-right">
        {props.canManage && (
          <ConfirmAction
            action={remove}
            fields={{ userId: props.userId }}
            disabled={removing}
            trigger={{ label: 'Remove', accessibleName: `Remove ${props.email}`, className: 'min-h-8 px-2 text-xs text-rose-700' }}
            title={`Remove ${props.email}?`}
            description={<p>They lose access to this merchant&apos;s dashboard at once. To let them back in, invite them again.</p>}
            confirmLabel="Remove member"
          />
        )}
        <Outcome state={removed} />
      </td>
    </tr>
  );
}

export function InvitationRow(props: { id: string; email: string; role: MemberRole; expiresAt: string; canManage: boolean }) {
  const [state, action, pending] = useActionState<FormState, FormData>(revokeInvitationAction, {});
  return (
    <tr data-testid="invitation-row">
      <td className="py-3">{props.email}</td>
      <td className="py-3">
        {props.role} <span className="text-xs text-slate-500">(invited, expires {props.expiresAt})</span>
      </td>
      <td className="py-3 text-right">
        {props.canManage && (
          <form action={action}>
            <input type="hidden" name="invitationId" value={props.id} />
            <Button type="submit" variant="ghost" className="min-h-8 px-2 text-xs" disabled={pending}>
              Revoke
            </Button>
          </form>
        )}
        <Outcome state={state} />
      </td>
    </tr>
  );
}
