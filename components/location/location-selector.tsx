'use client';

import { useRouter } from 'next/navigation';
import { useEffect, useRef, useTransition } from 'react';
import { setCountryAction } from '@/lib/geo/set-country-action';
import { LOCATION_OPTIONS_ID } from './location-options-id';

/**
 * Top-right country picker: decides the fiat methods offered; remembered in a cookie. Served with only the
 * current country: the ~250 options (9 KB, ~500 nodes) would sit in the HTML between the header and the
 * page's content, so the browser's first paint showed the header alone and the content a parse slice
 * later, after the scripts had arrived (ADR 0031). They come after the content instead, in a <template>
 * (LocationOptions), and are moved into the select when the browser is idle or the player reaches for it
 * (pointer, focus, key), whichever is first: a native clone, no React elements to create or hydrate.
 */
export function LocationSelector({ country, countryName }: { country: string; countryName: string }) {
  const router = useRouter();
  const [pending, startTransition] = useTransition();
  const selectRef = useRef<HTMLSelectElement>(null);

  useEffect(() => {
    const select = selectRef.current;
    if (!select) return;
    let filled = false;
    const fill = () => {
      const template = document.getElementById(LOCATION_OPTIONS_ID);
      if (filled || !(template instanceof HTMLTemplateElement)) return;
      filled = true;
      select.replaceChildren(template.content.cloneNode(true));
      select.value = country;
    };
    const events = ['pointerdown', 'focus', 'keydown'] as const;
    for (const type of events) select.addEventListener(type, fill);
    // Called as plain functions: as methods of another object they throw "Illegal invocation".
    const hasIdle = typeof requestIdleCallback === 'function';
    const idle = hasIdle ? requestIdleCallback(fill, { timeout: 2_000 }) : window.setTimeout(fill, 200);
    return () => {
      if (hasIdle) cancelIdleCallback(idle);
      else window.clearTimeout(idle);
      for (const type of events) select.removeEventListener(type, fill);
    };
  }, [country]);

  return (
    <label className="flex items-center gap-2 text-sm text-slate-600">
      <span className="sr-only sm:not-sr-only">Location</span>
      <select
        ref={selectRef}
        aria-label="Your location (country)"
        data-testid="location-selector"
        className="max-w-40 rounded-lg border border-slate-300 bg-white px-2 py-1 text-sm text-slate-800 focus:outline-none focus-visible:ring-2 focus-visible:ring-brand-500"
        disabled={pending}
        // The full list replaces this option outside React (above); a new country from the server resets it.
        key={country}
        defaultValue={country}
        onChange={(event) => {
          const next = event.target.value;
          startTransition(async () => {
            await setCountryAction(next);
            router.refresh();
          });
        }}
      >
        <option value={country}>{countryName}</option>
      </select>
    </label>
  );
}
