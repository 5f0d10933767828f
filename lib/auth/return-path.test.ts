import { describe, expect, it } from 'vitest';
import { safeReturnPath } from './return-path';

const appUrl = 'https://pay.example.com';

describe('safeReturnPath', () => {
  it.each([
    ['/invitations/abc123', '/invitations/abc123'],
    ['/checkout/ch_1?popup=1#pay', '/checkout/ch_1?popup=1#pay'],
    ['/account/pin?next=%2Fwallet', '/account/pin?next=%2Fwallet'],
    ['https://pay.example.com/dashboard?x=1', '/dashboard?x=1'],
  ])('keeps a path on this site: %s → %s', (input, expected) => {
    expect(safeReturnPath(input, { appUrl })).toBe(expected);
  });

  it.each([
    ['//evil.example/phish'],
    ['/\\evil.example/phish'],
    ['\\\\evil.example'],
    ['/\t/evil.example'],
    ['https://evil.example/'],
    ['https://pay.example.com.evil.example/'],
    ['javascript:alert(1)'],
    ['data:text/html,hi'],
    ['http://pay.example.com/dashboard'], // another scheme is another origin
    ['dashboard'],
    [''],
    [`/${'a'.repeat(3000)}`],
  ])('refuses %j and falls back to /wallet', (input) => {
    expect(safeReturnPath(input, { appUrl })).toBe('/wallet');
  });

  it('falls back to the given path, and for anything that is not a string', () => {
    expect(safeReturnPath(null, { fallback: '/dashboard' })).toBe('/dashboard');
    expect(safeReturnPath(undefined)).toBe('/wallet');
    expect(safeReturnPath('https://pay.example.com/x')).toBe('/wallet'); // no app URL given: relative paths only
  });
});
