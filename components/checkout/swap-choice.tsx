'use client';

import { useId, useState, type ReactNode } from 'react';

/** The swap on-ramp's one choice: pay with the funding token you hold, or buy it with a card. One shows at a time. */
export function SwapChoice({ options }: { options: { id: string; label: string; hint: string; content: ReactNode }[] }) {
  const [chosen, setChosen] = useState(options[0]?.id);
  const name = useId();
  return (
    <div className="flex flex-col gap-3">
      <fieldset className="grid gap-2 sm:grid-cols-2">
        <legend className="sr-only">How to pay</legend>
        {options.map((option) => (
          <label
            key={option.id}
            className={`flex cursor-pointer flex-col gap-0.5 rounded-lg p-3 text-sm ring-1 has-[:focus-visible]:outline-2 has-[:focus-visible]:outline-offset-2 has-[:focus-visible]:outline-brand-600 ${
              chosen === option.id ? 'bg-brand-50 ring-brand-600' : 'ring-slate-300'
            }`}
            data-testid={`swap-choice-${option.id}`}
          >
            <input type="radio" name={name} className="sr-only" checked={chosen === option.id} onChange={() => setChosen(option.id)} />
            <span className="font-medium">{option.label}</span>
            <span className="text-xs text-slate-500">{option.hint}</span>
          </label>
        ))}
      </fieldset>
      {options.map((option) => (
        <div key={option.id} hidden={chosen !== option.id}>
          {option.content}
        </div>
      ))}
    </div>
  );
}
