'use client';

import { useId, useState, useSyncExternalStore, type KeyboardEvent, type ReactNode } from 'react';

export interface PaymentTab {
  id: string;
  label: string;
  panel: ReactNode;
}

/**
 * The ways to pay as tabs: the suggested one (first) open, the others one click away. Every panel is
 * rendered (server-side, so addresses and forms are in the page at once) and the closed ones are `hidden`.
 * Arrow keys move between tabs (WAI-ARIA tabs pattern). Switching needs React: until the page is hydrated
 * the tabs are disabled, so a tap that could not switch is not swallowed silently (and a test's click waits
 * for them to be enabled instead of landing on an inert button).
 */
export function PaymentTabs({ tabs }: { tabs: PaymentTab[] }) {
  const [selected, setSelected] = useState(tabs[0]?.id);
  const baseId = useId();
  const hydrated = useSyncExternalStore(subscribeToNothing, isClient, isServer);
  if (tabs.length === 1) return <div data-testid={`way-${tabs[0]!.id}`}>{tabs[0]!.panel}</div>;

  function onKeyDown(event: KeyboardEvent<HTMLButtonElement>, index: number) {
    const step = event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0;
    if (!step) return;
    event.preventDefault();
    const next = tabs[(index + step + tabs.length) % tabs.length]!;
    setSelected(next.id);
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
              onClick={() => setSelected(tab.id)}
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
          {tab.panel}
        </div>
      ))}
    </div>
  );
}

const subscribeToNothing = () => () => {};
const isClient = () => true;
const isServer = () => false;
