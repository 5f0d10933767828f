import type { StepUpProof } from './step-up';

/** The step-up a form carries (components/account/step-up-fields.tsx): the PIN, or a passkey assertion. */
export function stepUpFromForm(form: FormData): StepUpProof {
  const value = (name: string) => String(form.get(name) ?? '').trim() || undefined;
  return { pin: value('pin'), passkeyResponse: value('passkeyResponse') };
}
