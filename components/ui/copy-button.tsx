'use client';

import { useState } from 'react';

/** Copies `text` to the clipboard and says so for two seconds. */
export function CopyButton({
  text,
  label = 'Copy address',
  compact = false,
  testId,
}: {
  text: string;
  label?: string;
  /** A small button beside a value (the checkout's address and amount). */
  compact?: boolean;
  testId?: string;
}) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setState('copied');
    } catch {
      // No clipboard permission (or an insecure page): the text stays selectable on the page.
      setState('failed');
    }
    setTimeout(() => setState('idle'), 2_000);
  };
  return (
    <button
      type="button"
      onClick={copy}
      {...(testId ? { 'data-testid': testId } : {})}
      className={`inline-flex shrink-0 items-center justify-center rounded-lg font-semibold text-slate-900 ring-1 ring-slate-300 hover:bg-slate-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600 ${
        compact ? 'min-h-9 px-3 text-xs' : 'min-h-11 px-4 text-sm'
      }`}
    >
      <span aria-live="polite">{state === 'copied' ? 'Copied' : state === 'failed' ? 'Select and copy it by hand' : label}</span>
    </button>
  );
}
