'use client';

import { useActionState } from 'react';
import { fulfilChargeAction, retryFulfilmentAction } from '@/app/dashboard/charges/[chargeId]/actions';
import { Button } from '@/components/ui/button';
import { Notice } from '@/components/ui/card';
import type { FormState } from '@/lib/auth/form-state';
import type { FulfilmentResource } from '@/lib/contracts/schemas';

const STATUS_LABEL = {
  pending: 'Starting',
  submitted: 'Sent, waiting for confirmations',
  succeeded: 'Delivered',
  failed: 'Failed',
} as const;

/** The charge page's fulfilments (Settings → Contracts rules carried out for it), with Retry for a failed one. */
export function FulfilmentsSection({
  chargeId,
  isSucceeded,
  fulfilments,
  rules,
  canManage,
}: {
  chargeId: string;
  isSucceeded: boolean;
  fulfilments: FulfilmentResource[];
  rules: { id: string; label: string }[];
  canManage: boolean;
}) {
  const [fulfilState, fulfilAction, fulfilling] = useActionState<FormState, FormData>(fulfilChargeAction, {});
  if (!fulfilments.length && !rules.length) return null;
  return (
    <section
      aria-labelledby="section-fulfilments"
      className="flex min-w-0 flex-col gap-3 rounded-xl bg-white p-5 ring-1 ring-slate-200"
      data-testid="fulfilments"
    >
      <h2 id="section-fulfilments" className="font-semibold">
        Fulfilments
      </h2>
      {fulfilments.length ? (
        <ul className="flex flex-col gap-3 text-sm">
          {fulfilments.map((fulfilment) => (
            <FulfilmentRow key={fulfilment.id} chargeId={chargeId} fulfilment={fulfilment} canManage={canManage} />
          ))}
        </ul>
      ) : (
        <p className="text-sm text-slate-600">No rule fulfilled this charge.</p>
      )}
      {canManage && isSucceeded && rules.length > 0 && (
        <form action={fulfilAction} className="flex flex-wrap items-end gap-2 border-t border-slate-200 pt-3 text-sm">
          <input type="hidden" name="chargeId" value={chargeId} />
          <label className="flex flex-col gap-1">
            Fulfil now with
            <select name="ruleId" className="min-h-11 rounded-lg border border-slate-300 bg-white px-3">
              {rules.map((rule) => (
                <option key={rule.id} value={rule.id}>
                  {rule.label}
                </option>
              ))}
            </select>
          </label>
          <Button type="submit" variant="secondary" disabled={fulfilling}>
            Fulfil
          </Button>
          {fulfilState.notice && <Notice tone="success">{fulfilState.notice}</Notice>}
          {fulfilState.error && (
            <p role="alert" className="w-full text-rose-700">
              {fulfilState.error.message}
            </p>
          )}
        </form>
      )}
    </section>
  );
}

function FulfilmentRow({ chargeId, fulfilment, canManage }: { chargeId: string; fulfilment: FulfilmentResource; canManage: boolean }) {
  const [state, action, pending] = useActionState<FormState, FormData>(retryFulfilmentAction, {});
  return (
    <li className="flex flex-col gap-1" data-testid="fulfilment-row" data-status={fulfilment.status}>
      <p className="flex flex-wrap gap-x-3">
        <span className="font-mono text-xs">{fulfilment.function}</span>
        <span className="font-medium">{STATUS_LABEL[fulfilment.status]}</span>
        {fulfilment.args && <span className="break-all font-mono text-xs text-slate-600">({fulfilment.args.join(', ')})</span>}
      </p>
      <p className="break-all font-mono text-xs text-slate-500">
        {fulfilment.chain} {fulfilment.contractAddress}
        {fulfilment.transactionHash && ` · tx ${fulfilment.transactionHash}`}
      </p>
      {fulfilment.failureReason && <p className="text-rose-700">{fulfilment.failureReason}</p>}
      {canManage && fulfilment.status === 'failed' && (
        <form action={action} className="flex items-center gap-2">
          <input type="hidden" name="chargeId" value={chargeId} />
          <input type="hidden" name="fulfilmentId" value={fulfilment.id} />
          <Button type="submit" variant="secondary" className="min-h-8 px-2 text-xs" disabled={pending}>
            {pending ? 'Retrying…' : 'Retry'}
          </Button>
          {state.notice && <span className="text-xs text-slate-600">{state.notice}</span>}
          {state.error && (
            <span role="alert" className="text-xs text-rose-700">
              {state.error.message}
            </span>
          )}
        </form>
      )}
    </li>
  );
}
