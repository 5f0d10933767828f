'use client';

import { useRouter } from 'next/navigation';
import { useSyncExternalStore, useTransition } from 'react';
import { setCountryAction } from '@/lib/geo/set-country-action';
import { escapeHtml } from '@/lib/http/escape-html';

const subscribeToNothing = () => () => {};
const isClient = () => true;
const isServer = () => false;

/**
 * Top-right country picker: decides the fiat methods offered; remembered in a cookie. The server renders
 * only the current country: the ~250 options are ~10 KB of HTML ahead of the page's content, which on a
 * phone painted after the framework's scripts had run (Lighthouse's LCP). Changing country needs
 * JavaScript anyway (the change calls a server action), so the list is filled in once the page is
 * hydrated, as one HTML string rather than ~250 React elements (the select is uncontrolled).
 */
export function LocationSelector({ country, options }: { country: string; options: { code: string; name: string }[] }) {
  const router = useRouter();
  const [pending, startTransition] = useTransition();
  const hydrated = useSyncExternalStore(subscribeToNothing, isClient, isServer);
  const shown = hydrated ? options : options.filter((option) => option.code === country);
  const optionsHtml = shown
    .map(
      (option) =>
        `<option value="${escapeHtml(option.code)}"${option.code === country ? ' selected' : ''}>${escapeHtml(option.name)}</option>`,
    )
    .join('');
  return (
    <label className="flex items-center gap-2 text-sm text-slate-600">
      <span className="sr-only sm:not-sr-only">Location</span>
      <select
        aria-label="Your location (country)"
        data-testid="location-selector"
        className="max-w-40 rounded-lg border border-slate-300 bg-white px-2 py-1 text-sm text-slate-800 focus:outline-none focus-visible:ring-2 focus-visible:ring-brand-500"
        disabled={pending}
        onChange={(event) => {
          const next = event.target.value;
          startTransition(async () => {
            await setCountryAction(next);
            router.refresh();
          });
        }}
        dangerouslySetInnerHTML={{ __html: optionsHtml }}
      />
    </label>
  );
}
