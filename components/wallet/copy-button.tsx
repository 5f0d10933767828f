'use client';

import { useState } from 'react';

/** Copies `text` to the clipboard and says so for two seconds. */
export function CopyButton({ text, label = 'Copy address' }: { text: string; label?: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setState('copied');
    } catch {
      // No clipboard permission (or an insecure page): the address stays selectable on the page.
      setState('failed');
    }
    setTimeout(() => setState('idle'), 2_000);
  };
  return (
    <button
      type="button"
      onClick={copy}
      className="inline-flex min-h-11 items-center justify-center rounded-lg px-4 text-sm font-semibold text-slate-900 ring-1 ring-slate-300 hover:bg-slate-50"
    >
      <span aria-live="polite">{state === 'copied' ? 'Copied' : state === 'failed' ? 'Select and copy it by hand' : label}</span>
    </button>
  );
}
