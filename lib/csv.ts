/**
 * CSV as RFC 4180 writes it (comma separated, CRLF line ends, fields with a comma, quote or line
 * break quoted, quotes doubled), with a guard against formula injection: a spreadsheet runs a cell
 * that starts with = + - @ (or a tab / carriage return, which some strip first) as a formula, so such
 * a cell gets a leading apostrophe and is shown as text (OWASP "CSV Injection").
 */

const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

export function csvCell(value: string | number | bigint | null | undefined): string {
  if (value === null || value === undefined) return '';
  let text = String(value);
  if (FORMULA_START.test(text)) text = `'${text}`;
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function csvRow(values: readonly (string | number | bigint | null | undefined)[]): string {
  return `${values.map(csvCell).join(',')}\r\n`;
}
