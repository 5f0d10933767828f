/**
 * Display text from other people (merchant names, charge item names, on-ramp wallet labels) is shown
 * to buyers next to amounts and addresses. Bidirectional controls can make it read as something else
 * ("‮cod.exe" shown reversed, an address's digits reordered), and control and invisible characters
 * hide text or break the layout. So such text is stored and shown with them removed:
 *
 *  - line breaks and tabs become spaces; runs of whitespace collapse to one; the ends are trimmed;
 *  - C0 and C1 controls and DEL are removed;
 *  - bidi marks, embeddings, overrides and isolates (U+061C, U+200E/F, U+202A–E, U+2066–9) are removed;
 *  - invisible separators (zero-width space U+200B, word joiner U+2060, BOM U+FEFF) are removed.
 *
 * Zero-width joiners (U+200C/D) stay: scripts such as Persian and emoji sequences need them.
 */
const LINE_BREAKS = /[\t\n\v\f\r\u0085\u2028\u2029]/g;
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200b\u200e\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff]/g;

export function cleanDisplayText(raw: string): string {
  return raw.replace(LINE_BREAKS, ' ').replace(UNSAFE, '').replace(/\s+/g, ' ').trim();
}
