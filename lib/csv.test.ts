import { describe, expect, it } from 'vitest';
import { parseCsv } from '@/test/parse-csv';
import { csvCell, csvRow } from './csv';

describe('csvCell', () => {
  it.each([
    ['plain', 'plain'],
    ['a,b', '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ['two\nlines', '"two\nlines"'],
    ['cr\rhere', '"cr\rhere"'],
    ['', ''],
  ])('%j → %j', (input, expected) => {
    expect(csvCell(input)).toBe(expected);
  });

  it.each([
    ['=1+1', "'=1+1"],
    ['+1', "'+1"],
    ['-1', "'-1"],
    ['@SUM(A1)', "'@SUM(A1)"],
    ['\t=1', "'\t=1"],
    ['=HYPERLINK("http://evil.example","x")', `"'=HYPERLINK(""http://evil.example"",""x"")"`],
  ])('a cell starting a formula is made text: %j → %j', (input, expected) => {
    expect(csvCell(input)).toBe(expected);
  });

  it('writes numbers, bigints and missing values', () => {
    expect(csvCell(12)).toBe('12');
    expect(csvCell(2n ** 80n)).toBe('1208925819614629174706176');
    expect(csvCell(null)).toBe('');
    expect(csvCell(undefined)).toBe('');
  });

  it('rows end with CRLF and read back cell for cell', () => {
    const cells = ['ch_1', 'a,b', 'quote " inside', 'multi\r\nline', '{"k":"v, w"}', '=cmd', ''];
    const text = csvRow(cells) + csvRow(['x', 'y']);
    expect(text.endsWith('\r\n')).toBe(true);
    expect(parseCsv(text)).toEqual([cells.map((cell) => (cell === '=cmd' ? "'=cmd" : cell)), ['x', 'y']]);
  });
});
