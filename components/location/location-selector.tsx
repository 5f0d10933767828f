'use client';

import { useRouter } from 'next/navigation';
import { useTransition } from 'react';
import { setCountryAction } from '@/lib/geo/set-country-action';
import { escapeHtml } from '@/lib/http/escape-html';

/**
 * Top-right country picker: decides the fiat methods offered; remembered in a cookie. Its ~250 options
 * are one HTML string, not ~250 React elements: hydrating them was a large share of the checkout's
 * hydration on a phone, and React never needs to touch them (the select is uncontrolled).
 */
export function LocationSelector({ country, options }: { country: string; options: { code: string; name: string }[] }) {
  const router = useRouter();
  const [pending, startTransition] = useTransition();
  const optionsHtml = options
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
