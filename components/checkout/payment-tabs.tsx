'use client';

import { useEffect, useId, useState, type KeyboardEvent, type ReactNode } from 'react';

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
 * for them to be enabled instead of landing on an inert button). They are disabled by one `<fieldset>`
 * around them, not by each button, and enabled in a task of its own after hydration: flipping each button
 * inside hydration's last task (as a store whose server value differs did) made that task the checkout's
 * longest, ~3 style invalidations per tab, counted by a phone's total blocking time (ADR 0031).
 */
export function PaymentTabs({ tabs }: { tabs: PaymentTab[] }) {
  const [selected, setSelected] = useState(tabs[0]?.id);
  const baseId = useId();
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => {
    const timer = setTimeout(() => setHydrated(true), 0);
    return () => clearTimeout(timer);
  }, []);
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
      <fieldset disabled={!hydrated} className="contents">
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
      </fieldset>
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
