'use client';

import { useActionState, useRef } from 'react';
import { exportKeyAction, type ExportState } from '@/app/(account)/actions';
import { Button } from '@/components/ui/button';
import { StepUpFields } from './step-up-fields';

/** The PIN entry dialog of a key export; the key is shown once, with a warning, inside the dialog. */
export function ExportKeyButton({ walletId, label }: { walletId: string; label: string }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [state, action, pending] = useActionState<ExportState, FormData>(exportKeyAction, {});
  return (
    <>
      <Button type="button" variant="secondary" onClick={() => dialog.current?.showModal()}>
        Export private key
      </Button>
      <dialog
        ref={dialog}
        aria-labelledby={`export-${walletId}`}
        className="m-auto w-[min(28rem,calc(100%-2rem))] rounded-2xl p-6 backdrop:bg-slate-900/40"
      >
        <h2 id={`export-${walletId}`} className="text-lg font-semibold">
          Export the {label} private key
        </h2>
        {state.exported ? (
          <div className="mt-4 flex flex-col gap-3">
            <p role="alert" className="rounded-lg bg-rose-50 px-3 py-2 text-sm text-rose-900 ring-1 ring-rose-200">
              Anyone with this key controls the funds. Store it offline; never share it. It is shown only now.
            </p>
            <code data-testid="exported-key" className="break-all rounded-lg bg-slate-100 p-3 font-mono text-sm">
              {state.exported.privateKey}
            </code>
            <Button type="button" onClick={() => dialog.current?.close()}>
              Done
            </Button>
          </div>
        ) : (
          <form action={action} className="mt-4 flex flex-col gap-4" noValidate>
            <input type="hidden" name="walletId" value={walletId} />
            <StepUpFields error={state.error?.message} />
            <div className="flex gap-2">
              <Button type="button" variant="ghost" onClick={() => dialog.current?.close()}>
                Cancel
              </Button>
              <Button type="submit" disabled={pending} className="flex-1">
                Show private key
              </Button>
            </div>
          </form>
        )}
      </dialog>
    </>
  );
}
