import { describe, expect, it } from 'vitest';
import { GET as checkoutStatus } from '@/app/api/checkout/[chargeId]/status/route';
import { GET as onrampOrder } from '@/app/api/onramp/orders/[orderId]/route';
import { AppError } from '@/lib/errors';
import { withPublic } from './with-public';

const route = (params: Record<string, string>) => ({ params: Promise.resolve(params) });

async function envelope(response: Response): Promise<{ data: unknown; error: { code: string; message: string } | null }> {
  return (await response.json()) as { data: unknown; error: { code: string; message: string } | null };
}

describe('withPublic: routes answers the { data, error } envelope with a request id', () => {
  it('a domain error becomes its code and status; the caller’s request id is echoed', async () => {
    const handler = withPublic(async () => {
      throw new AppError('rate_limited', 'Slow down.', { headers: { 'retry-after': '7' }, details: { retryAfter: '7' } });
    });
    const response = await handler(new Request('http://x/api/y', { headers: { 'x-request-id': 'req-123' } }));
    expect(response.status).toBe(429);
    expect(response.headers.get('x-request-id')).toBe('req-123');
    expect(response.headers.get('retry-after')).toBe('7');
    expect(await envelope(response)).toEqual({
      data: null,
      error: { code: 'rate_limited', message: 'Slow down.', details: { retryAfter: '7' } },
    });
  });

  it('an unknown error is a generic 500 that quotes the request id and leaks nothing', async () => {
    const handler = withPublic(async () => {
      throw new Error('password=hunter2 at db.internal:5432');
    });
    const response = await handler(new Request('http://x/api/y'));
    const body = await envelope(response);
    expect(response.status).toBe(500);
    expect(body.error?.code).toBe('internal_error');
    expect(body.error?.message).toContain(response.headers.get('x-request-id')!);
    expect(JSON.stringify(body)).not.toContain('hunter2');
  });

  it('public routes: an unknown id is 404 not_found in the envelope', async () => {
    for (const response of [
      await checkoutStatus(new Request('http://x/api/checkout/nope/status'), route({ chargeId: 'nope' })),
      await onrampOrder(new Request('http://x/api/onramp/orders/nope'), route({ orderId: 'nope' })),
    ]) {
      expect(response.status).toBe(404);
      expect(response.headers.get('x-request-id')).toBeTruthy();
      expect((await envelope(response)).error?.code).toBe('not_found');
    }
  });
});
