'use client';

import { useActionState } from 'react';
import { addCustomTokenAction, setTokenEnabledAction } from '@/app/dashboard/settings/tokens/actions';
import { Button } from '@/components/ui/button';
import { Notice } from '@/components/ui/card';
import { Field } from '@/components/ui/field';
import type { FormState } from '@/lib/auth/form-state';

export function TokenToggle({
  chain,
  address,
  symbol,
  enabled,
  canManage,
}: {
  chain: string;
  address: string;
  symbol: string;
  enabled: boolean;
  canManage: boolean;
}) {
  const [state, action, pending] = useActionState<FormState, FormData>(setTokenEnabledAction, {});
  return (
    <form action={action} className="flex items-center justify-end gap-2">
      <input type="hidden" name="chain" value={chain} />
      <input type="hidden" name="address" value={address} />
      <input type="hidden" name="enabled" value={String(!enabled)} />
      <span className={`text-xs font-medium ${enabled ? 'text-emerald-700' : 'text-slate-500'}`} data-testid="token-state">
        {enabled ? 'Accepted' : 'Disabled'}
      </span>
      {canManage && (
        <Button
          type="submit"
          variant="secondary"
          className="min-h-8 px-2 text-xs"
          disabled={pending}
          aria-label={`${enabled ? 'Disable' : 'Enable'} ${symbol} on ${chain}`}
        >
          {enabled ? 'Disable' : 'Enable'}
        </Button>
      )}
      {state.error && (
        <span role="alert" className="text-xs text-rose-700">
          {state.error.message}
        </span>
      )}
    </form>
  );
}

export function AddCustomTokenForm({ chains }: { chains: string[] }) {
  const [state, action, pending] = useActionState<FormState, FormData>(addCustomTokenAction, {});
  return (
    <form
      action={action}
      className="flex max-w-md flex-col gap-3 rounded-xl bg-white p-5 ring-1 ring-slate-200"
      aria-labelledby="custom-token-heading"
    >
      <h2 id="custom-token-heading" className="font-semibold">
        Add a custom ERC-20
      </h2>
      <p className="text-sm text-slate-600">Its symbol and decimals are read from the contract.</p>
      {state.notice && <Notice tone="success">{state.notice}</Notice>}
      <label className="flex flex-col gap-1.5 text-sm font-medium text-slate-800">
        Network
        <select
          name="chain"
          defaultValue={state.values?.chain ?? chains[0]}
          className="min-h-11 rounded-lg border border-slate-300 bg-white px-3 text-base"
        >
          {chains.map((chain) => (
            <option key={chain} value={chain}>
              {chain}
            </option>
          ))}
        </select>
      </label>
      <Field
        label="Contract address"
        name="address"
        required
        defaultValue={state.values?.address}
        error={state.error?.message}
        placeholder="0x…"
      />
      <Button type="submit" disabled={pending}>
        {pending ? 'Reading the contract…' : 'Add token'}
      </Button>
    </form>
  );
}
