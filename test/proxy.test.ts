/** The page proxy (proxy.ts): a NUL character in a page URL is refused before any page runs its query. */
import { NextRequest } from 'next/server';
import { describe, expect, it } from 'vitest';
import { proxy } from '@/proxy';

describe('proxy', () => {
  it('a page path carrying %00 is 404 and a query carrying it 400, with no page rendered', async () => {
    const path = proxy(new NextRequest('http://localhost/checkout/ch_abc%00def'));
    expect(path.status).toBe(404);
    expect(path.headers.get('x-middleware-next')).toBeNull();
    const query = proxy(new NextRequest('http://localhost/dashboard/charges?q=a%00b'));
    expect(query.status).toBe(400);
    expect(await query.text()).toMatch(/NUL character/);
  });

  it('any other page goes on, with a nonce and its Content-Security-Policy', () => {
    const response = proxy(new NextRequest('http://localhost/checkout/ch_abc?mode=popup&q=%2500'));
    expect(response.headers.get('x-middleware-next')).toBe('1');
    expect(response.headers.get('content-security-policy')).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]+'/);
  });
});
