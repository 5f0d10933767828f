'use client';

import { useActionState } from 'react';
import { updateProfileAction } from '@/app/dashboard/settings/profile/actions';
import { Button } from '@/components/ui/button';
import { Notice } from '@/components/ui/card';
import { Field } from '@/components/ui/field';
import type { FormState } from '@/lib/auth/form-state';

export function ProfileForm({ initial, canEdit }: { initial: { name: string; logoUrl: string; supportEmail: string }; canEdit: boolean }) {
  const [state, action, pending] = useActionState<FormState, FormData>(updateProfileAction, {});
  const values = state.values ?? initial;
  const errorFor = (param: string) => (state.error?.param === param ? state.error.message : undefined);
  return (
    <form action={action} className="flex max-w-md flex-col gap-4">
      {state.notice && <Notice tone="success">{state.notice}</Notice>}
      <fieldset disabled={!canEdit || pending} className="flex flex-col gap-4">
        <Field
          label="Business name"
          name="name"
          required
          defaultValue={values.name}
          error={errorFor('name')}
          hint="Shown on the checkout and as the wallet label on the on-ramp. Changing it after business verification sends it back to support for review."
        />
        <Field
          label="Logo URL"
          name="logoUrl"
          type="url"
          defaultValue={values.logoUrl}
          error={errorFor('logoUrl')}
          hint="An https:// image, shown next to your name on the checkout."
          placeholder="https://"
        />
        <Field
          label="Support e-mail"
          name="supportEmail"
          type="email"
          defaultValue={values.supportEmail}
          error={errorFor('supportEmail')}
        />
        {canEdit && (
          <Button type="submit" disabled={pending}>
            {pending ? 'Saving…' : 'Save profile'}
          </Button>
        )}
      </fieldset>
    </form>
  );
}
