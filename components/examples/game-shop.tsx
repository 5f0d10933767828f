'use client';
/**
 * The example merchant of /examples/pay: pick an item, Buy creates a charge with a publishable key
 * and pays it in the Chargeport popup with `pay()`; this page never navigates. A real shop is on
 * its own origin and confirms the payment on its server before delivering (see sdk/README.md).
 *
 * With an OAuth app's client id, "Sign in with Chargeport" signs the player in (PKCE popup), shows
 * their e-mail and balances, and Buy then pays from their balance: the PIN is typed in Chargeport's
 * popup, never on this page.
 */
import { useMemo, useState } from 'react';
import { Button } from '@/components/ui/button';
import { Field } from '@/components/ui/field';
import {
  Chain,
  Chargeport,
  ChargeportError,
  redirectToCheckout,
  type ChargeportUser,
  type CreateChargeResult,
  type PayResult,
  type WalletBalances,
} from '@/sdk/src/index';

/** Test charges take the test network's native token; POL works with live keys on Polygon too. */
const NATIVE_TOKEN = '0x0000000000000000000000000000000000000000';
const ITEMS = [
  { sku: 'gems-100', name: 'Pouch of 100 gems', price: '0.15', emoji: '💎' },
  { sku: 'dragon-skin', name: 'Dragon skin', price: '0.2', emoji: '🐉' },
  { sku: 'season-pass', name: 'Season pass', price: '1', emoji: '🎟️' },
] as const;
type Item = (typeof ITEMS)[number];

type Phase =
  | { kind: 'idle' }
  | { kind: 'paying' }
  | { kind: 'done'; item: Item; result: PayResult }
  | { kind: 'blocked'; charge: Promise<CreateChargeResult> }
  | { kind: 'error'; message: string };

const OUTCOME_TEXT: Record<PayResult['status'], (item: Item) => string> = {
  succeeded: (item) => `Paid! ${item.name} is yours (a real shop confirms with its server before delivering).`,
  canceled: () => 'You canceled the payment. Nothing was charged.',
  expired: () => 'The payment window timed out. Try again.',
  failed: () => 'The payment did not go through. Nothing was delivered.',
  dismissed: () => 'You closed the payment window before paying.',
};

export function GameShop({ baseUrl, defaultApiKey, defaultClientId }: { baseUrl: string; defaultApiKey: string; defaultClientId: string }) {
  const [apiKey, setApiKey] = useState(defaultApiKey);
  const [clientId, setClientId] = useState(defaultClientId);
  const [selected, setSelected] = useState<Item>(ITEMS[0]);
  const [phase, setPhase] = useState<Phase>({ kind: 'idle' });
  const [player, setPlayer] = useState<{ user: ChargeportUser; balances?: WalletBalances }>();
  const [signInError, setSignInError] = useState<string>();

  // One client per key and app: it keeps the signed-in session for this tab.
  const chargeport = useMemo(() => {
    try {
      return new Chargeport({
        apiKey: apiKey.trim(),
        baseUrl,
        ...(clientId.trim()
          ? {
              signIn: {
                clientId: clientId.trim(),
                redirectUri: `${typeof window === 'undefined' ? baseUrl : window.location.origin}/examples/pay/callback`,
              },
            }
          : {}),
      });
    } catch {
      return undefined;
    }
  }, [apiKey, clientId, baseUrl]);

  async function signIn() {
    setSignInError(undefined);
    try {
      const user = await chargeport!.signIn();
      setPlayer({ user });
      setPlayer({ user, balances: await chargeport!.getBalances().catch(() => undefined) });
    } catch (error) {
      setSignInError(error instanceof Error ? error.message : String(error));
    }
  }

  // Runs in the click handler itself: pay() must open its window before any await, or the browser
  // blocks it. So the charge is created inside pay(), which takes the promise.
  async function buy(item: Item) {
    let charge: Promise<CreateChargeResult> | undefined;
    try {
      if (!chargeport) throw new Error('Enter a publishable key first.');
      charge = chargeport.createCharge({
        chain: Chain.POLYGON,
        symbol: 'POL',
        tokenAddress: NATIVE_TOKEN,
        items: [{ name: item.name, amount: item.price, quantity: 1 }],
        metadata: { sku: item.sku },
      });
      setPhase({ kind: 'paying' });
      const result = await chargeport.pay(charge);
      setPhase({ kind: 'done', item, result });
    } catch (error) {
      if (error instanceof ChargeportError && error.code === 'popup_blocked' && charge) setPhase({ kind: 'blocked', charge });
      else setPhase({ kind: 'error', message: error instanceof Error ? error.message : String(error) });
    }
  }

  return (
    <main className="mx-auto flex max-w-3xl flex-col gap-8 px-4 py-10">
      <header className="flex flex-col gap-2">
        <p className="text-sm font-semibold uppercase tracking-wide text-brand-600">Example merchant</p>
        <h1 className="text-3xl font-semibold">Pixel Quest shop</h1>
        <p className="text-slate-600">
          This page plays a game studio&apos;s shop. <strong>Buy</strong> creates a charge with a publishable key and calls the web
          SDK&apos;s <code className="font-mono text-sm">pay()</code>: the Chargeport checkout opens in a window over this page, and the
          outcome comes back here. The address bar never changes.
        </p>
      </header>

      <Field
        label="Publishable key"
        name="apiKey"
        value={apiKey}
        onChange={(event) => setApiKey(event.target.value)}
        placeholder="cp_pub_test_…"
        autoComplete="off"
        spellCheck={false}
        hint={defaultApiKey ? 'The demo key that `npm run dev` seeded.' : 'A publishable key of your merchant account (cp_pub_…).'}
      />

      <section aria-labelledby="sign-in-heading" className="flex flex-col gap-3 rounded-2xl bg-white p-5 shadow-sm ring-1 ring-slate-200">
        <h2 id="sign-in-heading" className="font-semibold">
          Sign in with Chargeport (optional)
        </h2>
        <p className="text-sm text-slate-600">
          Signed in, Buy pays from the player&apos;s Chargeport balance: a Chargeport window shows the purchase and asks for the PIN. The
          app&apos;s redirect URI is <code className="font-mono text-xs">/examples/pay/callback</code> on this origin.
        </p>
        <Field
          label="OAuth client id"
          name="clientId"
          value={clientId}
          onChange={(event) => setClientId(event.target.value)}
          placeholder="cpapp_…"
          autoComplete="off"
          spellCheck={false}
          hint={defaultClientId ? 'The demo app that `npm run dev` seeded.' : 'A public app registered on the dashboard’s OAuth tab.'}
        />
        {player ? (
          <div data-testid="player" className="text-sm">
            <p>
              Signed in as <strong data-testid="player-email">{player.user.email ?? player.user.sub}</strong>
            </p>
            {player.balances && (
              <ul className="mt-1 text-xs text-slate-600" data-testid="player-balances">
                {player.balances.wallets
                  .flatMap((wallet) => wallet.chains)
                  .flatMap((chain) =>
                    chain.tokens.filter((token) => token.baseUnits && token.baseUnits !== '0').map((token) => ({ chain, token })),
                  )
                  .map(({ chain, token }) => (
                    <li key={`${chain.chain}:${token.tokenAddress}`}>
                      {token.amount} {token.symbol} on {chain.displayName}
                    </li>
                  ))}
              </ul>
            )}
            <Button variant="secondary" className="mt-2" onClick={() => void chargeport?.signOut().then(() => setPlayer(undefined))}>
              Sign out
            </Button>
          </div>
        ) : (
          <Button variant="secondary" className="self-start" disabled={!chargeport || !clientId.trim()} onClick={() => void signIn()}>
            Sign in with Chargeport
          </Button>
        )}
        {signInError && (
          <p role="alert" className="text-sm text-rose-700">
            {signInError}
          </p>
        )}
      </section>

      <fieldset className="grid gap-3 sm:grid-cols-3">
        <legend className="mb-2 text-sm font-medium text-slate-800">Pick an item</legend>
        {ITEMS.map((item) => (
          <label
            key={item.sku}
            className="flex cursor-pointer flex-col gap-1 rounded-2xl bg-white p-4 shadow-sm ring-1 ring-slate-200 has-checked:ring-2 has-checked:ring-brand-500"
          >
            <input
              type="radio"
              name="item"
              value={item.sku}
              checked={selected.sku === item.sku}
              onChange={() => setSelected(item)}
              className="sr-only"
            />
            <span aria-hidden className="text-3xl">
              {item.emoji}
            </span>
            <span className="font-medium">{item.name}</span>
            <span className="font-mono text-sm text-slate-600">{item.price} POL</span>
          </label>
        ))}
      </fieldset>

      <div className="flex flex-col gap-3">
        <Button onClick={() => void buy(selected)} disabled={phase.kind === 'paying' || !apiKey.trim()} className="self-start">
          {phase.kind === 'paying' ? 'Paying…' : `Buy ${selected.name} for ${selected.price} POL`}
        </Button>
        <Outcome phase={phase} />
      </div>
    </main>
  );
}

function Outcome({ phase }: { phase: Phase }) {
  const [fallbackError, setFallbackError] = useState<string>();
  switch (phase.kind) {
    case 'idle':
    case 'paying':
      return <div aria-live="polite" data-testid="outcome" data-status="" />;
    case 'done':
      return (
        <p
          aria-live="polite"
          data-testid="outcome"
          data-status={phase.result.status}
          className="rounded-lg bg-white p-4 ring-1 ring-slate-200"
        >
          <span className="font-mono text-sm text-slate-500">{phase.result.status}</span> · {OUTCOME_TEXT[phase.result.status](phase.item)}{' '}
          <span className="text-xs text-slate-400">({phase.result.chargeId})</span>
        </p>
      );
    case 'blocked':
      return (
        <div
          role="alert"
          data-testid="outcome"
          data-status="popup_blocked"
          className="flex flex-col items-start gap-2 rounded-lg bg-amber-50 p-4 ring-1 ring-amber-200"
        >
          <p>Your browser blocked the payment window.</p>
          <Button
            variant="secondary"
            onClick={() =>
              phase.charge.then(
                ({ paymentUrl }) => redirectToCheckout(paymentUrl),
                (error: Error) => setFallbackError(error.message),
              )
            }
          >
            Pay on the Chargeport page instead
          </Button>
          {fallbackError && <p className="text-sm text-rose-700">{fallbackError}</p>}
        </div>
      );
    case 'error':
      return (
        <p role="alert" data-testid="outcome" data-status="error" className="rounded-lg bg-rose-50 p-4 text-rose-800 ring-1 ring-rose-200">
          {phase.message}
        </p>
      );
  }
}
