'use client';

import { useId, useRef, useState, type ReactNode } from 'react';
import { Button } from './button';

/**
 * A destructive action behind a confirmation. The trigger opens a modal `<dialog>`: the browser moves
 * focus into it, keeps it there, closes it on Escape and gives focus back to the trigger. The dialog
 * says what will happen and holds the form that does it. Focus starts on Cancel (or on the field to
 * type in), so Enter never destroys anything by accident.
 *
 * `typeToConfirm`: the confirm button stays disabled until one of `accepted` is typed, in any case (the field is
 * sent as `confirm`, and the server checks it too: the dialog is a convenience, not the control).
 */
export function ConfirmAction({
  action,
  fields,
  trigger,
  title,
  description,
  confirmLabel,
  typeToConfirm,
  extra,
  disabled,
}: {
  /** The form action that does the destructive thing. */
  action: (form: FormData) => void;
  /** Hidden inputs of that form (ids). */
  fields: Record<string, string>;
  trigger: { label: string; className?: string; accessibleName?: string };
  title: string;
  description: ReactNode;
  confirmLabel: string;
  typeToConfirm?: { accepted: string[]; label: string };
  /** More fields of the form (a step-up, say). */
  extra?: ReactNode;
  disabled?: boolean;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const firstFocus = useRef<HTMLElement | null>(null);
  const [typed, setTyped] = useState('');
  const id = useId();
  const isConfirmed = !typeToConfirm || typeToConfirm.accepted.some((word) => word.toLowerCase() === typed.trim().toLowerCase());
  const close = () => {
    dialog.current?.close();
    setTyped('');
  };
  return (
    <>
      <Button
        type="button"
        variant="ghost"
        className={trigger.className}
        aria-label={trigger.accessibleName}
        aria-haspopup="dialog"
        disabled={disabled}
        onClick={() => {
          dialog.current?.showModal();
          firstFocus.current?.focus();
        }}
      >
        {trigger.label}
      </Button>
      <dialog
        ref={dialog}
        aria-labelledby={`${id}-title`}
        aria-describedby={`${id}-description`}
        onClose={() => setTyped('')}
        className="m-auto w-[min(28rem,calc(100%-2rem))] rounded-2xl p-0 text-left shadow-xl backdrop:bg-slate-900/50"
      >
        <form action={action} onSubmit={() => dialog.current?.close()} className="flex flex-col gap-4 p-6">
          <h2 id={`${id}-title`} className="text-lg font-semibold text-slate-900">
            {title}
          </h2>
          <div id={`${id}-description`} className="text-sm text-slate-700">
            {description}
          </div>
          {Object.entries(fields).map(([name, value]) => (
            <input key={name} type="hidden" name={name} value={value} />
          ))}
          {extra}
          {typeToConfirm && (
            <div className="flex flex-col gap-1.5">
              <label htmlFor={`${id}-confirm`} className="text-sm font-medium text-slate-800">
                {typeToConfirm.label}
              </label>
              <input
                id={`${id}-confirm`}
                ref={(element) => {
                  firstFocus.current = element;
                }}
                name="confirm"
                autoComplete="off"
                spellCheck={false}
                value={typed}
                onChange={(event) => setTyped(event.target.value)}
                className="min-h-11 rounded-lg border border-slate-300 bg-white px-3 text-base outline-none focus:border-brand-500 focus:ring-2 focus:ring-brand-100"
              />
            </div>
          )}
          <div className="flex flex-wrap justify-end gap-2">
            <Button
              type="button"
              variant="secondary"
              onClick={close}
              ref={(element) => {
                if (!typeToConfirm) firstFocus.current = element;
              }}
            >
              Cancel
            </Button>
            <Button type="submit" variant="danger" disabled={!isConfirmed}>
              {confirmLabel}
            </Button>
          </div>
        </form>
      </dialog>
    </>
  );
}
