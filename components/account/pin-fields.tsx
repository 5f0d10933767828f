import { Field } from '@/components/ui/field';

/** A 6-digit PIN input: masked, numeric keypad on phones, never autofilled as a password. */
export function PinField({
  label,
  name,
  error,
  autoFocus,
  optional = false,
}: {
  label: string;
  name: string;
  error?: string;
  autoFocus?: boolean;
  /** Needed only for some choices of the form (the server says when): the browser must not insist. */
  optional?: boolean;
}) {
  return (
    <Field
      label={label}
      name={name}
      type="password"
      inputMode="numeric"
      autoComplete="off"
      pattern="[0-9]{6}"
      maxLength={6}
      required={!optional}
      autoFocus={autoFocus}
      error={error}
    />
  );
}

/**
 * The error of a form state goes next to the field it names (`param`); an error naming no field of
 * this form goes next to the form's first field.
 */
export function errorFor(
  state: { error?: { message: string; param?: string } },
  name: string,
  fields: readonly string[],
): string | undefined {
  const error = state.error;
  if (!error) return undefined;
  if (error.param === name) return error.message;
  const namesAField = error.param !== undefined && fields.includes(error.param);
  return !namesAField && name === fields[0] ? error.message : undefined;
}
