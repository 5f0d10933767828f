'use client';

import { useId, useState, useSyncExternalStore, type KeyboardEvent, type ReactNode } from 'react';

export interface PaymentTab {
  id: string;
  label: string;
  panel: ReactNode;
}

/**
 * The ways to pay as tabs: the suggested one (first) open, the others one click away. Only the open tab's
 * panel is in the served HTML and hydrated at load; another is rendered from the page's data (already in
 * the Flight payload, no request) the first time its tab is chosen, then stays mounted, `hidden`, so a
 * half-filled form survives a look at another tab. Hydrating every panel cost the checkout ~40 ms of
 * main thread on a phone's CPU for forms most players never open (ADR 0031).
 * Arrow keys move between tabs (WAI-ARIA tabs pattern). Switching needs React: until the page is hydrated
 * the tabs are disabled, so a tap that could not switch is not swallowed silently (and a test's click waits
 * for them to be enabled instead of landing on an inert button).
 */
export function PaymentTabs({ tabs }: { tabs: PaymentTab[] }) {
  const [selected, setSelected] = useState(tabs[0]?.id);
  const [opened, setOpened] = useState<ReadonlySet<string | undefined>>(() => new Set([tabs[0]?.id]));
  const baseId = useId();
  const hydrated = useSyncExternalStore(subscribeToNothing, isClient, isServer);
  if (tabs.length === 1) return <div data-testid={`way-${tabs[0]!.id}`}>{tabs[0]!.panel}</div>;

  function select(id: string) {
    setSelected(id);
    setOpened((previous) => (previous.has(id) ? previous : new Set(previous).add(id)));
  }

  function onKeyDown(event: KeyboardEvent<HTMLButtonElement>, index: number) {
    const step = event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0;
    if (!step) return;
    event.preventDefault();
    const next = tabs[(index + step + tabs.length) % tabs.length]!;
    select(next.id);
    document.getElementById(`${baseId}-tab-${next.id}`)?.focus();
  }

  // Tabs as wide as their labels (not equal thirds): "Crypto wallet" stays on one line beside "Balance"
  // on a desktop; on a phone a label wraps only when the three cannot fit.
  return (
    <div className="flex flex-col gap-4">
      <div role="tablist" aria-label="Ways to pay" className="flex gap-1 rounded-xl bg-slate-100 p-1">
        {tabs.map((tab, index) => {
          const isSelected = tab.id === selected;
          return (
            <button
              key={tab.id}
              id={`${baseId}-tab-${tab.id}`}
              type="button"
              role="tab"
              aria-selected={isSelected}
              aria-controls={`${baseId}-panel-${tab.id}`}
              tabIndex={isSelected ? 0 : -1}
              disabled={!hydrated}
              onClick={() => select(tab.id)}
              onKeyDown={(event) => onKeyDown(event, index)}
              data-testid={`tab-${tab.id}`}
              className={`min-h-10 flex-auto rounded-lg px-2 text-sm text-balance font-medium leading-tight focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600 ${
                isSelected ? 'bg-white text-slate-900 shadow-sm' : 'text-slate-600 hover:text-slate-900'
              }`}
            >
              {tab.label}
            </button>
          );
        })}
      </div>
      {tabs.map((tab) => (
        <div
          key={tab.id}
          id={`${baseId}-panel-${tab.id}`}
          role="tabpanel"
          aria-labelledby={`${baseId}-tab-${tab.id}`}
          hidden={tab.id !== selected}
          data-testid={`way-${tab.id}`}
        >
          {opened.has(tab.id) && tab.panel}
        </div>
      ))}
    </div>
  );
}

const subscribeToNothing = () => () => {};
const isClient = () => true;
const isServer = () => false;
