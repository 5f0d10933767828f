'use client';

import { useActionState } from 'react';
import { becomeMerchantAction, type BecomeMerchantState } from '@/app/(account)/actions';
import { Button } from '@/components/ui/button';
import { Notice } from '@/components/ui/card';
import { Field } from '@/components/ui/field';

export function BecomeMerchantForm() {
  const [state, action, pending] = useActionState<BecomeMerchantState, FormData>(becomeMerchantAction, {});
  if (state.testKey) {
    return (
      <div className="flex flex-col gap-3">
        <Notice tone="success">Your merchant account {state.values?.businessName} is ready.</Notice>
        <p className="text-sm text-slate-700">Your test API key — shown only now, store it in your server&apos;s secrets:</p>
        <code data-testid="new-test-key" className="break-all rounded-lg bg-slate-100 p-3 font-mono text-sm">
          {state.testKey}
        </code>
        <p className="text-sm text-slate-600">A production key comes after business verification, which you request from the dashboard.</p>
      </div>
    );
  }
  return (
    <form action={action} className="flex flex-col gap-4" noValidate>
      <Field
        label="Business name"
        name="businessName"
        required
        hint="Shown to your players at checkout and as the wallet label on the on-ramp."
        defaultValue={state.values?.businessName}
        error={state.error?.message}
      />
      <Button type="submit" disabled={pending}>
        Become a merchant
      </Button>
    </form>
  );
}
