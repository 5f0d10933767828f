'use client';

import Link from 'next/link';
import { useActionState } from 'react';
import { withdrawAction } from '@/app/dashboard/balances/actions';
import { StepUpFields } from '@/components/account/step-up-fields';
import { Button } from '@/components/ui/button';
import { Notice } from '@/components/ui/card';
import { Field } from '@/components/ui/field';
import type { FormState } from '@/lib/auth/form-state';

/** What the two-factor rule for a verified merchant's owner means for this viewer (lib/views/load-balances-page.ts). */
type TwoFactorNeed = { state: 'not_needed' | 'ready' | 'none' } | { state: 'cooling'; usableFrom: string };

/**
 * `withdrawalId` is the withdrawal's idempotency id: a double submit or a retry is one withdrawal; the page hands out a new one after each.
 * `heldUntil`: the new-owner hold (lib/merchants/withdrawal-hold.ts), shown instead of a form that would be refused.
 * `twoFactor`: said before the form is filled — a verified merchant's owner needs two-factor sign-in
 * (the form is disabled, with a link to Account → Security, while it is missing or still new).
 */
export function WithdrawForm({
  tokens,
  withdrawalId,
  heldUntil,
  twoFactor,
}: {
  tokens: { value: string; label: string }[];
  withdrawalId: string;
  heldUntil?: string;
  twoFactor: TwoFactorNeed;
}) {
  const blocked = Boolean(heldUntil) || twoFactor.state === 'none' || twoFactor.state === 'cooling';
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
      <p className="text-sm text-slate-600" data-testid="withdraw-asks">
        You confirm a withdrawal with your PIN or a passkey
        {twoFactor.state === 'not_needed' ? '.' : ', and as an owner of a verified merchant you need two-factor sign-in turned on.'}
      </p>
      {twoFactor.state === 'none' && (
        <Notice tone="error">
          <span data-testid="withdraw-needs-two-factor">
            Turn on two-factor sign-in (a passkey or an authenticator app) under{' '}
            <Link href="/account/security" className="underline">
              Account → Security
            </Link>{' '}
            before you withdraw.
          </span>
        </Notice>
      )}
      {twoFactor.state === 'cooling' && (
        <Notice tone="error">
          <span data-testid="withdraw-needs-two-factor">
            Your two-factor sign-in is new: it counts for live withdrawals from {twoFactor.usableFrom} (
            <Link href="/account/security" className="underline">
              Account → Security
            </Link>
            ).
          </span>
        </Notice>
      )}
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
        placeholder="0x… or a Solana address"
      />
      <StepUpFields error={errorFor('pin')} />
      <Button type="submit" disabled={pending || blocked}>
        {pending ? 'Sending…' : 'Withdraw'}
      </Button>
    </form>
  );
}
