import { describe, expect, it } from 'vitest';
import { cleanDisplayText } from './text';

describe('cleanDisplayText', () => {
  it.each([
    ['bidi override (reads "exe.doc" as "cod.exe")', 'Invoice \u202Ecod.exe', 'Invoice cod.exe'],
    ['bidi isolates and marks', '\u2067Acme\u2069 \u200FGames\u200E\u061C', 'Acme Games'],
    ['controls, DEL and C1', 'Gem\u0000 pack\u0007\u007f\u0085\u009b', 'Gem pack'],
    ['line breaks and tabs become one space', 'Sword\n\tof\r\n  doom\u2028', 'Sword of doom'],
    ['invisible separators', 'Pay\u200Bpal\u2060\uFEFF', 'Paypal'],
  ])('removes %s', (_what, raw, cleaned) => {
    expect(cleanDisplayText(raw)).toBe(cleaned);
  });

  it('keeps ordinary text, markup as text, other scripts and emoji sequences', () => {
    for (const text of ['<b>Gem</b> & "Co"', 'متجر الألعاب', 'می‌خواهم', '👩‍👩‍👧 pack', 'Ünïcødé 🎮'])
      expect(cleanDisplayText(text)).toBe(text);
  });
});
