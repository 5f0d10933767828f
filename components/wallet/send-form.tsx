'use client';

import { useActionState, useState } from 'react';
import { sendAction, type SendFormState } from '@/app/(account)/wallet/send/actions';
import { PinField } from '@/components/account/pin-fields';
import { Button } from '@/components/ui/button';
import { Notice } from '@/components/ui/card';
import { Field } from '@/components/ui/field';
import type { SendOption } from '@/lib/wallets/send-options';

const FIELDS = ['token', 'toAddress', 'amount'] as const;

/** Send: choose token and network, recipient and amount → review with the fee → PIN → send. */
export function SendForm({ options, defaultToken }: { options: SendOption[]; defaultToken?: string }) {
  const [state, action, pending] = useActionState<SendFormState, FormData>(sendAction, {});
  // React resets a form after each action, and a <select> goes back to the option it was first rendered
  // with: a new key per result mounts the form afresh, with the values just submitted as its defaults.
  const [formKey, setFormKey] = useState(0);
  const [seen, setSeen] = useState(state);
  if (seen !== state) {
    setSeen(state);
    setFormKey(formKey + 1);
  }
  const errorFor = (param: string) => (state.error?.param === param ? state.error.message : undefined);
  const general =
    state.error && !(FIELDS as readonly string[]).includes(state.error.param ?? '') && state.error.param !== 'pin'
      ? state.error.message
      : undefined;

  if (state.preview) {
    const preview = state.preview;
    return (
      <form
        action={action}
        className="flex max-w-md flex-col gap-3 rounded-xl bg-white p-5 ring-1 ring-slate-200"
        aria-labelledby="review-heading"
        data-testid="send-review"
      >
        <h2 id="review-heading" className="font-semibold">
          Check and confirm
        </h2>
        {general && <Notice tone="error">{general}</Notice>}
        <dl className="grid grid-cols-[7rem_1fr] gap-y-2 text-sm">
          <dt className="text-slate-500">Send</dt>
          <dd className="font-mono break-all" data-testid="review-amount">
            {preview.amount} {preview.symbol}
          </dd>
          <dt className="text-slate-500">Network</dt>
          <dd>{preview.chainDisplayName}</dd>
          <dt className="text-slate-500">To</dt>
          <dd className="font-mono break-all" data-testid="review-to">
            {preview.toAddress}
          </dd>
          <dt className="text-slate-500">Network fee</dt>
          <dd data-testid="review-fee">
            up to <span className="font-mono">{preview.fee.maxAmount}</span> {preview.fee.symbol}
            {preview.fee.usd !== undefined && <> (≈ ${preview.fee.usd})</>},{' '}
            {preview.fee.paidBy === 'service' ? 'paid by Chargeport' : `paid from your ${preview.fee.symbol} balance`}
          </dd>
        </dl>
        <p className="text-xs text-slate-500">Transfers cannot be undone. Check the address: tokens sent to a wrong address are lost.</p>
        <input type="hidden" name="token" value={`${preview.chain}:${preview.tokenAddress}`} />
        <input type="hidden" name="toAddress" value={preview.toAddress} />
        <input type="hidden" name="amount" value={preview.amount} />
        <input type="hidden" name="sendId" value={preview.sendId} />
        <PinField label="Your PIN" name="pin" error={errorFor('pin')} autoFocus />
        <div className="flex flex-wrap gap-2">
          <Button type="submit" name="intent" value="confirm" disabled={pending}>
            {pending ? 'Sending…' : `Send ${preview.amount} ${preview.symbol}`}
          </Button>
          <Button type="submit" name="intent" value="edit" variant="secondary" formNoValidate disabled={pending}>
            Change
          </Button>
        </div>
      </form>
    );
  }

  return (
    <form
      key={formKey}
      action={action}
      className="flex max-w-md flex-col gap-3 rounded-xl bg-white p-5 ring-1 ring-slate-200"
      aria-labelledby="send-heading"
    >
      <h2 id="send-heading" className="font-semibold">
        What to send
      </h2>
      {general && <Notice tone="error">{general}</Notice>}
      <label className="flex flex-col gap-1.5 text-sm font-medium text-slate-800">
        Token and network
        <select
          name="token"
          defaultValue={state.values?.token ?? defaultToken ?? options[0]?.value}
          aria-invalid={errorFor('token') ? true : undefined}
          className="min-h-11 rounded-lg border border-slate-300 bg-white px-3 text-base"
        >
          {[false, true].map((isTestnet) => (
            <optgroup key={String(isTestnet)} label={isTestnet ? 'Test networks' : 'Main networks'}>
              {options
                .filter((option) => option.isTestnet === isTestnet)
                .map((option) => (
                  <option key={option.value} value={option.value}>
                    {option.label}
                  </option>
                ))}
            </optgroup>
          ))}
        </select>
        {errorFor('token') && (
          <span role="alert" className="text-sm font-normal text-rose-700">
            {errorFor('token')}
          </span>
        )}
      </label>
      <Field
        label="To address"
        name="toAddress"
        required
        autoComplete="off"
        spellCheck={false}
        defaultValue={state.values?.toAddress}
        error={errorFor('toAddress')}
        placeholder="0x…"
      />
      <Field
        label="Amount"
        name="amount"
        inputMode="decimal"
        required
        autoComplete="off"
        defaultValue={state.values?.amount}
        error={errorFor('amount')}
      />
      <input type="hidden" name="intent" value="review" />
      <Button type="submit" disabled={pending}>
        {pending ? 'Checking…' : 'Review'}
      </Button>
    </form>
  );
}
