'use client';

import { useActionState } from 'react';
import {
  confirmPhoneLinkAction,
  requestPinResetAction,
  resetPinAction,
  startPhoneLinkAction,
  unlinkPhoneAction,
} from '@/app/(account)/actions';
import { Button } from '@/components/ui/button';
import { Notice } from '@/components/ui/card';
import { CodeField } from '@/components/ui/code-field';
import { Field } from '@/components/ui/field';
import { PHONE_EXAMPLE } from '@/lib/accounts/phone-example';
import { PinField, errorFor } from './pin-fields';

/**
 * The number as the user writes it: international ("+1 415 555 0100") or as dialled in the chosen country
 * ("(415) 555-0100" with United States); the server parses it (lib/accounts/phone.ts) and answers in E.164.
 */
export function LinkPhoneForm({
  needsPin,
  country,
  countries,
}: {
  needsPin: boolean;
  country: string;
  countries: { code: string; name: string }[];
}) {
  const [started, startAction, starting] = useActionState(startPhoneLinkAction, {});
  const [confirmed, confirmAction, confirming] = useActionState(confirmPhoneLinkAction, {});
  const phone = started.values?.phone;
  const codeSent = Boolean(started.notice && phone);
  const fields = ['phone', 'pin'] as const;
  return (
    <div className="flex flex-col gap-6">
      <form action={startAction} className="flex flex-col gap-4" noValidate>
        <label className="flex flex-col gap-1.5 text-sm font-medium text-slate-800">
          Country
          <select
            name="country"
            defaultValue={started.values?.country ?? country}
            className="min-h-11 w-full min-w-0 rounded-lg border border-slate-300 bg-white px-3 text-base"
          >
            {countries.map((option) => (
              <option key={option.code} value={option.code}>
                {option.name}
              </option>
            ))}
          </select>
        </label>
        <Field
          label="Phone number"
          name="phone"
          type="tel"
          autoComplete="tel"
          placeholder={PHONE_EXAMPLE}
          hint={`As you dial it in that country, or with its country code (${PHONE_EXAMPLE}). We send a code by SMS.`}
          defaultValue={phone}
          required
          error={errorFor(started, 'phone', fields)}
        />
        {needsPin && <PinField label="Your PIN" name="pin" error={errorFor(started, 'pin', fields)} />}
        <Button type="submit" variant={codeSent ? 'secondary' : 'primary'} disabled={starting}>
          {codeSent ? 'Send a new code' : 'Send code'}
        </Button>
      </form>
      {codeSent && (
        <form action={confirmAction} className="flex flex-col gap-4" noValidate>
          <Notice tone="success">{started.notice}</Notice>
          <input type="hidden" name="phone" value={phone} />
          <CodeField autoFocus error={confirmed.error?.message} />
          <Button type="submit" disabled={confirming}>
            Link phone
          </Button>
        </form>
      )}
    </div>
  );
}

export function UnlinkPhoneForm() {
  const [state, action, pending] = useActionState(unlinkPhoneAction, {});
  return (
    <form action={action} className="flex flex-col gap-4" noValidate>
      <PinField label="Your PIN" name="pin" error={state.error?.message} />
      <Button type="submit" variant="secondary" disabled={pending}>
        Unlink phone
      </Button>
    </form>
  );
}

export function ForgotPinForm() {
  const [requested, requestAction, requesting] = useActionState(requestPinResetAction, {});
  const [reset, resetAction, resetting] = useActionState(resetPinAction, {});
  const fields = ['code', 'pin', 'confirm'] as const;
  return (
    <div className="flex flex-col gap-6">
      <form action={requestAction}>
        {requested.error && <Notice tone="error">{requested.error.message}</Notice>}
        <Button type="submit" variant={requested.notice ? 'secondary' : 'primary'} disabled={requesting} className="w-full">
          {requested.notice ? 'Send a new code' : 'Send a code to my phone'}
        </Button>
      </form>
      {requested.notice && (
        <form action={resetAction} className="flex flex-col gap-4" noValidate>
          <Notice tone="success">{requested.notice}</Notice>
          <CodeField error={errorFor(reset, 'code', fields)} />
          <PinField label="New PIN (6 digits)" name="pin" error={errorFor(reset, 'pin', fields)} />
          <PinField label="Repeat the new PIN" name="confirm" error={errorFor(reset, 'confirm', fields)} />
          <Button type="submit" disabled={resetting}>
            Set new PIN
          </Button>
        </form>
      )}
    </div>
  );
}
