// GET /api/charges — the key's charges, newest first, with cursor pagination and filters.
import { parseOrThrow, searchParamsObject } from '@/lib/api/parse';
import { ok } from '@/lib/http/response-envelope';
import { withApiKey } from '@/lib/api/with-api-key';
import { listCharges } from '@/lib/charges/list-charges';
import { listChargesQuerySchema } from '@/lib/charges/schemas';
import { serializeCharge } from '@/lib/charges/serialize';
import { methodsNotAllowed } from '@/lib/api/methods';

export const GET = withApiKey(async (request, ctx) => {
  const query = parseOrThrow(listChargesQuerySchema, searchParamsObject(request));
  const page = await listCharges({ ctx, query });
  return ok({ object: 'list', data: page.charges.map((row) => serializeCharge(row)), has_more: page.hasMore });
});

export const { POST, PUT, PATCH, DELETE } = methodsNotAllowed('GET');
