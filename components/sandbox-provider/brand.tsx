import type { HTMLAttributes, ReactNode } from 'react';

/** Sandpiper Pay's own frame: a different name, palette and a visible "sandbox" badge, so nobody takes it for a real card processor. */
export function SandpiperFrame({ children }: { children: ReactNode }) {
  return (
    <div className="min-h-dvh bg-gradient-to-b from-teal-50 to-stone-100 text-stone-900">
      <header className="border-b border-teal-900/10 bg-white/70">
        <div className="mx-auto flex max-w-lg items-center justify-between gap-3 px-4 py-3">
          <span className="flex items-center gap-2 text-lg font-bold tracking-tight text-teal-800">
            <svg aria-hidden="true" viewBox="0 0 24 24" className="size-6 fill-teal-700">
              <path d="M3 15c3-1 5-4 8-4 2 0 3 1 5 1s3-2 5-3c-1 4-4 7-8 7-3 0-4-1-6-1s-3 1-4 1zm11-7a1.5 1.5 0 1 1 0-3 1.5 1.5 0 0 1 0 3z" />
            </svg>
            Sandpiper Pay
          </span>
          <span
            className="rounded-full bg-amber-200 px-2.5 py-0.5 text-xs font-semibold uppercase tracking-wide text-amber-900"
            data-testid="sandbox-badge"
          >
            Sandbox
          </span>
        </div>
      </header>
      <main className="mx-auto flex max-w-lg flex-col gap-4 px-4 py-6">{children}</main>
      <footer className="mx-auto max-w-lg px-4 pb-8 text-center text-xs text-stone-500">
        Sandpiper Pay is a test payment provider: no real money moves and no card details are kept.
      </footer>
    </div>
  );
}

export function Panel({ className = '', ...props }: HTMLAttributes<HTMLElement>) {
  return <section {...props} className={`rounded-2xl border border-stone-200 bg-white p-5 shadow-sm ${className}`} />;
}
