import { Field } from './field';

/** The 6-digit one-time code input: numeric keypad, one-time-code autofill. */
export function CodeField({ error, hint, autoFocus }: { error?: string; hint?: string; autoFocus?: boolean }) {
  return (
    <Field
      label="6-digit code"
      name="code"
      inputMode="numeric"
      autoComplete="one-time-code"
      pattern="[0-9]{6}"
      maxLength={6}
      required
      autoFocus={autoFocus}
      hint={hint}
      error={error}
    />
  );
}
