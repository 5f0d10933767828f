/**
 * The merchant API as a key holder calls it, typed by the API's own zod schemas (lib/charges/schemas.ts):
 * a wrong body or a misread field fails `tsc`, not a journey halfway. Each call expects 200 and returns `data`.
 */
import { expect, type APIRequestContext } from '@playwright/test';
import type { z } from 'zod';
import type { ChargeResource, createChargeBodySchema, createChargeResultSchema } from '@/lib/charges/schemas';

type CreateChargeInput = z.input<typeof createChargeBodySchema>;
type CreateChargeResult = z.infer<typeof createChargeResultSchema>;

/** Native POL on Polygon (with a test key, or `isTest`, on its test network Amoy): the simplest charge a journey can need. */
export const TEST_POL = { symbol: 'POL', chain: 'POLYGON', tokenAddress: '0x0000000000000000000000000000000000000000' } as const;

export function merchantApi(request: APIRequestContext, key: string) {
  const headers = { 'x-api-key': key };
  async function data<T>(response: Awaited<ReturnType<APIRequestContext['get']>>): Promise<T> {
    expect(response.status(), await response.text()).toBe(200);
    return ((await response.json()) as { data: T }).data;
  }
  return {
    createCharge: async (body: CreateChargeInput) =>
      data<CreateChargeResult>(await request.post('/api/createCharge', { headers, data: body })),
    getCharge: async (chargeId: string) => data<ChargeResource>(await request.get(`/api/charges/${chargeId}`, { headers })),
    cancelCharge: async (chargeId: string) => data<ChargeResource>(await request.post(`/api/charges/${chargeId}/cancel`, { headers })),
  };
}
