/**
 * The merchant API as a key holder calls it, typed by the API's own zod schemas (lib/charges/schemas.ts):
 * a wrong body or a misread field fails `tsc`, not a journey halfway. Each call expects 200 and returns `data`;
 * `createChargeResponse` returns the response itself, for a journey whose point is the status (a revoked key,
 * a refused chain).
 */
import { expect, type APIRequestContext, type APIResponse } from '@playwright/test';
import type { z } from 'zod';
import type { ChargeResource, createChargeBodySchema, createChargeResultSchema } from '@/lib/charges/schemas';
import type { RefundList } from '@/lib/refunds/schemas';

/** A createCharge body as the API accepts it (for a spec that must send it with its own HTTP client). */
export type CreateChargeInput = z.input<typeof createChargeBodySchema>;
type CreateChargeResult = z.infer<typeof createChargeResultSchema>;

/** Native POL on Polygon (with a test key, or `isTest`, on its test network Amoy): the simplest charge a journey can need. */
export const TEST_POL = { symbol: 'POL', chain: 'POLYGON', tokenAddress: '0x0000000000000000000000000000000000000000' } as const;

/** `baseUrl` addresses another server than the stack's (the standalone server); by default the request's baseURL. */
export function merchantApi(request: APIRequestContext, key: string, options: { baseUrl?: string } = {}) {
  const headers = { 'x-api-key': key };
  const url = (pathname: string) => `${options.baseUrl ?? ''}${pathname}`;
  async function data<T>(response: APIResponse): Promise<T> {
    expect(response.status(), await response.text()).toBe(200);
    return ((await response.json()) as { data: T }).data;
  }
  const createChargeResponse = (body: CreateChargeInput, call: { idempotencyKey?: string } = {}) =>
    request.post(url('/api/createCharge'), {
      headers: { ...headers, ...(call.idempotencyKey ? { 'idempotency-key': call.idempotencyKey } : {}) },
      data: body,
    });
  return {
    createCharge: async (body: CreateChargeInput, call: { idempotencyKey?: string } = {}) =>
      data<CreateChargeResult>(await createChargeResponse(body, call)),
    createChargeResponse,
    getCharge: async (chargeId: string) => data<ChargeResource>(await request.get(url(`/api/charges/${chargeId}`), { headers })),
    listRefunds: async (chargeId: string) => data<RefundList>(await request.get(url(`/api/charges/${chargeId}/refunds`), { headers })),
    cancelCharge: async (chargeId: string) => data<ChargeResource>(await request.post(url(`/api/charges/${chargeId}/cancel`), { headers })),
  };
}
