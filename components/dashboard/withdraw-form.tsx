'use client';

import { useActionState } from 'react';
import { withdrawAction } from '@/app/dashboard/balances/actions';
import { StepUpFields } from '@/components/account/step-up-fields';
import { Button } from '@/components/ui/button';
import { Notice } from '@/components/ui/card';
import { Field } from '@/components/ui/field';
import type { FormState } from '@/lib/auth/form-state';

/**
 * `withdrawalId` is the withdrawal's idempotency id: a double submit or a retry is one withdrawal; the page hands out a new one after each.
 * `heldUntil`: the new-owner hold (lib/merchants/owner-hold.ts), shown instead of a form that would be refused.
 */
export function WithdrawForm({
  tokens,
  withdrawalId,
  heldUntil,
}: {
  tokens: { value: string; label: string }[];
  withdrawalId: string;
  heldUntil?: string;
}) {
  const [state, action, pending] = useActionState<FormState, FormData>(withdrawAction, {});
  const errorFor = (param: string) => (state.error?.param === param ? state.error.message : undefined);
  const general = state.error && !['amount', 'toAddress', 'pin'].includes(state.error.param ?? '') ? state.error.message : undefined;
  return (
    <form
      action={action}
      className="flex max-w-md flex-col gap-3 rounded-xl bg-white p-5 ring-1 ring-slate-200"
      aria-labelledby="withdraw-heading"
    >
      <h2 id="withdraw-heading" className="font-semibold">
        Withdraw
      </h2>
      <input type="hidden" name="withdrawalId" value={withdrawalId} />
      {heldUntil && (
        <Notice tone="error">
          <span data-testid="withdrawal-hold">
            You became an owner recently: your withdrawals are held until {new Date(heldUntil).toLocaleString()}. The other owners were
            told.
          </span>
        </Notice>
      )}
      {state.notice && <Notice tone="success">{state.notice}</Notice>}
      {general && <Notice tone="error">{general}</Notice>}
      <label className="flex flex-col gap-1.5 text-sm font-medium text-slate-800">
        Token
        {/* Keyed: React 19 resets the form after the action, and a select keeps only its first defaultValue. */}
        <select
          key={state.values?.token ?? ''}
          name="token"
          defaultValue={state.values?.token ?? tokens[0]?.value}
          className="min-h-11 rounded-lg border border-slate-300 bg-white px-3 text-base"
        >
          {tokens.map((token) => (
            <option key={token.value} value={token.value}>
              {token.label}
            </option>
          ))}
        </select>
      </label>
      <Field label="Amount" name="amount" inputMode="decimal" required defaultValue={state.values?.amount} error={errorFor('amount')} />
      <Field
        label="To address"
        name="toAddress"
        required
        defaultValue={state.values?.toAddress}
        error={errorFor('toAddress')}
        placeholder="0x…"
      />
      <StepUpFields error={errorFor('pin')} />
      <Button type="submit" disabled={pending || Boolean(heldUntil)}>
        {pending ? 'Sending…' : 'Withdraw'}
      </Button>
    </form>
  );
}
