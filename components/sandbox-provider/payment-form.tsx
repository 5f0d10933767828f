'use client';

import { useActionState, useId, useState, type FormEvent, type InputHTMLAttributes } from 'react';
import { sandboxPayAction, type SandboxPayState } from '@/app/sandbox-provider/pay/[sessionId]/actions';
import type { SandboxPaymentMethod } from '@/lib/sandbox-provider/schemas';
import { TEST_CARDS, validateCard, type CardField, type CardFieldErrors } from '@/lib/sandbox-provider/card';
import { Panel } from './brand';
import { PaymentFailed, PaymentReceived, ReturnLink } from './outcome';

const METHODS: readonly { id: SandboxPaymentMethod; label: string }[] = [
  { id: 'card', label: 'Card' },
  { id: 'bank_transfer', label: 'Bank transfer' },
  { id: 'apple_pay', label: 'Apple Pay' },
  { id: 'google_pay', label: 'Google Pay' },
];

const WALLET_BUTTONS: Record<Exclude<SandboxPaymentMethod, 'card'>, { text: string; note: string; className: string }> = {
  bank_transfer: {
    text: 'Confirm bank transfer',
    note: 'In the sandbox the transfer arrives at once.',
    className: 'bg-teal-700 text-white hover:bg-teal-800',
  },
  apple_pay: {
    text: 'Pay with Apple Pay',
    note: 'The sandbox approves the wallet payment.',
    className: 'bg-black text-white hover:bg-stone-800',
  },
  google_pay: {
    text: 'Pay with Google Pay',
    note: 'The sandbox approves the wallet payment.',
    className: 'bg-white text-stone-900 ring-1 ring-stone-300 hover:bg-stone-50',
  },
};

const BUTTON =
  'inline-flex min-h-11 w-full items-center justify-center rounded-xl px-4 text-sm font-semibold transition disabled:opacity-60';

/** The payment step of the Sandpiper Pay screen: method tabs, the card form with test cards, and the 3-D Secure challenge. */
export function PaymentForm(props: {
  sessionId: string;
  total: string;
  defaultMethod: SandboxPaymentMethod;
  redirectUrl: string;
  awaitingAuthentication: boolean;
}) {
  const [state, action, pending] = useActionState<SandboxPayState, FormData>(sandboxPayAction, {
    status: props.awaitingAuthentication ? 'authentication_required' : 'idle',
  });
  const [method, setMethod] = useState<SandboxPaymentMethod>(props.defaultMethod);
  const tabsId = useId();

  if (state.status === 'paid') return <PaymentReceived redirectUrl={props.redirectUrl} autoRedirect />;
  if (state.status === 'failed') return <PaymentFailed message={state.message ?? 'The payment failed.'} redirectUrl={props.redirectUrl} />;
  // Errors here end the screen: the session expired, was paid in another tab, or does not exist.
  if (state.status === 'error') {
    return (
      <Panel className="flex flex-col gap-3">
        <p role="alert" className="text-sm text-rose-700">
          {state.message}
        </p>
        <ReturnLink redirectUrl={props.redirectUrl} />
      </Panel>
    );
  }
  if (state.status === 'authentication_required') {
    return (
      <Panel className="flex flex-col gap-4" data-testid="three-d-secure">
        <div>
          <h2 className="text-lg font-semibold">3-D Secure check</h2>
          <p className="mt-1 text-sm text-stone-600">
            Your bank asks you to confirm this payment of {props.total}. In the sandbox, choose how the check ends.
          </p>
        </div>
        <form action={action} className="flex flex-col gap-2">
          <input type="hidden" name="sessionId" value={props.sessionId} />
          <input type="hidden" name="intent" value="authenticate" />
          <button
            type="submit"
            name="outcome"
            value="complete"
            disabled={pending}
            className={`${BUTTON} bg-teal-700 text-white hover:bg-teal-800`}
          >
            Complete authentication
          </button>
          <button
            type="submit"
            name="outcome"
            value="fail"
            disabled={pending}
            className={`${BUTTON} bg-white text-rose-700 ring-1 ring-rose-300 hover:bg-rose-50`}
          >
            Fail authentication
          </button>
        </form>
      </Panel>
    );
  }

  return (
    <Panel className="flex flex-col gap-4">
      <div role="tablist" aria-label="Payment method" className="grid grid-cols-2 gap-1 rounded-xl bg-stone-100 p-1 sm:grid-cols-4">
        {METHODS.map((m) => (
          <button
            key={m.id}
            type="button"
            role="tab"
            id={`${tabsId}-${m.id}`}
            aria-selected={method === m.id}
            aria-controls={`${tabsId}-panel`}
            onClick={() => setMethod(m.id)}
            className={`min-h-10 rounded-lg px-2 text-sm font-medium ${method === m.id ? 'bg-white text-teal-800 shadow-sm' : 'text-stone-600 hover:text-stone-900'}`}
          >
            {m.label}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`${tabsId}-panel`} aria-labelledby={`${tabsId}-${method}`}>
        {method === 'card' ? (
          <CardForm sessionId={props.sessionId} total={props.total} action={action} pending={pending} serverErrors={state.fieldErrors} />
        ) : (
          <form action={action} className="flex flex-col gap-3">
            <input type="hidden" name="sessionId" value={props.sessionId} />
            <input type="hidden" name="intent" value={method} />
            <p className="text-sm text-stone-600">{WALLET_BUTTONS[method].note}</p>
            <button type="submit" disabled={pending} className={`${BUTTON} ${WALLET_BUTTONS[method].className}`}>
              {pending ? 'Paying…' : `${WALLET_BUTTONS[method].text} · ${props.total}`}
            </button>
          </form>
        )}
      </div>
    </Panel>
  );
}

function CardForm(props: {
  sessionId: string;
  total: string;
  action: (form: FormData) => void;
  pending: boolean;
  serverErrors?: CardFieldErrors;
}) {
  const [values, setValues] = useState<Record<CardField, string>>({ number: '', expiry: '', cvc: '', name: '' });
  const [localErrors, setLocalErrors] = useState<CardFieldErrors | undefined>();
  const errors = localErrors ?? props.serverErrors ?? {};
  const set = (field: CardField) => (value: string) => setValues((v) => ({ ...v, [field]: value }));

  // Checked here for instant inline errors; the server checks again with the same rules.
  function onSubmit(event: FormEvent<HTMLFormElement>) {
    const result = validateCard(values, new Date());
    if (!result.ok) {
      event.preventDefault();
      setLocalErrors(result.errors);
    } else {
      setLocalErrors(undefined);
    }
  }

  return (
    <div className="flex flex-col gap-4">
      <form action={props.action} onSubmit={onSubmit} noValidate className="flex flex-col gap-3">
        <input type="hidden" name="sessionId" value={props.sessionId} />
        <input type="hidden" name="intent" value="card" />
        <CardInput
          label="Card number"
          name="number"
          value={values.number}
          onValue={set('number')}
          error={errors.number}
          inputMode="numeric"
          autoComplete="cc-number"
          placeholder="4242 4242 4242 4242"
        />
        <div className="grid grid-cols-2 gap-3">
          <CardInput
            label="Expiry (MM/YY)"
            name="expiry"
            value={values.expiry}
            onValue={set('expiry')}
            error={errors.expiry}
            inputMode="numeric"
            autoComplete="cc-exp"
            placeholder="MM/YY"
          />
          <CardInput
            label="CVC"
            name="cvc"
            value={values.cvc}
            onValue={set('cvc')}
            error={errors.cvc}
            inputMode="numeric"
            autoComplete="cc-csc"
            placeholder="123"
          />
        </div>
        <CardInput label="Name on card" name="name" value={values.name} onValue={set('name')} error={errors.name} autoComplete="cc-name" />
        <button type="submit" disabled={props.pending} className={`${BUTTON} bg-teal-700 text-white hover:bg-teal-800`}>
          {props.pending ? 'Paying…' : `Pay ${props.total}`}
        </button>
      </form>
      <div className="rounded-xl border border-dashed border-amber-300 bg-amber-50 p-3 text-sm" data-testid="test-cards">
        <p className="font-medium text-amber-900">Test cards (any future expiry, any CVC)</p>
        <ul className="mt-2 flex flex-col gap-1">
          {TEST_CARDS.map((card) => (
            <li key={card.number} className="flex items-center justify-between gap-2">
              <span>
                <span className="font-mono">{card.number}</span> <span className="text-stone-600">{card.description}</span>
              </span>
              <button type="button" onClick={() => set('number')(card.number)} className="text-xs font-semibold text-teal-800 underline">
                Use
              </button>
            </li>
          ))}
        </ul>
      </div>
    </div>
  );
}

function CardInput({
  label,
  error,
  onValue,
  ...input
}: Omit<InputHTMLAttributes<HTMLInputElement>, 'onChange'> & { label: string; error?: string; onValue: (value: string) => void }) {
  const id = useId();
  return (
    <div className="flex flex-col gap-1">
      <label htmlFor={id} className="text-sm font-medium text-stone-800">
        {label}
      </label>
      <input
        id={id}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
        onChange={(event) => onValue(event.target.value)}
        {...input}
        className="min-h-11 rounded-xl border border-stone-300 bg-white px-3 text-base outline-none focus:border-teal-600 focus:ring-2 focus:ring-teal-100 aria-invalid:border-rose-500"
      />
      {error && (
        <p id={`${id}-error`} role="alert" className="text-sm text-rose-700">
          {error}
        </p>
      )}
    </div>
  );
}
