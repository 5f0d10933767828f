/** "0x1234…abcd": enough to recognise an address, short enough for a phone. */
export function shortAddress(address: string): string {
  return address.length > 12 ? `${address.slice(0, 6)}…${address.slice(-4)}` : address;
}

/**
 * "$1,234.50" for USD amounts ("1234.5" and the database's "1234.50000000" too); other currencies, and
 * amounts finer than cents, as they are ("1234.50 EUR"). Display only.
 */
export function formatFiat(amount: string, currency: string): string {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(amount);
  const cents = (match?.[2] ?? '').replace(/0+$/, '');
  // Written out here rather than lib/pricing's formatUsd: that module reads the database, and this runs in the browser.
  if (currency === 'USD' && match && cents.length <= 2) return `$${BigInt(match[1]!).toLocaleString('en-US')}.${cents.padEnd(2, '0')}`;
  return `${amount} ${currency}`;
}
