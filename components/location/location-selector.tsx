'use client';

import { useRouter } from 'next/navigation';
import { useTransition } from 'react';
import { setCountryAction } from '@/lib/geo/set-country-action';

/** Top-right country picker: decides the fiat methods offered; remembered in a cookie. */
export function LocationSelector({ country, options }: { country: string; options: { code: string; name: string }[] }) {
  const router = useRouter();
  const [pending, startTransition] = useTransition();
  return (
    <label className="flex items-center gap-2 text-sm text-slate-600">
      <span className="sr-only sm:not-sr-only">Location</span>
      <select
        aria-label="Your location (country)"
        data-testid="location-selector"
        className="max-w-40 rounded-lg border border-slate-300 bg-white px-2 py-1 text-sm text-slate-800 focus:outline-none focus-visible:ring-2 focus-visible:ring-brand-500"
        defaultValue={country}
        disabled={pending}
        onChange={(event) => {
          const next = event.target.value;
          startTransition(async () => {
            await setCountryAction(next);
            router.refresh();
          });
        }}
      >
        {options.map((option) => (
          <option key={option.code} value={option.code}>
            {option.name}
          </option>
        ))}
      </select>
    </label>
  );
}
