// GET /api/openapi.json — the OpenAPI 3.1 document of the merchant API.
import { buildOpenApiDocument } from '@/lib/api/openapi';
import { env } from '@/lib/env';
import { methodsNotAllowed } from '@/lib/api/methods';

export function GET(): Response {
  return Response.json(buildOpenApiDocument(env().APP_URL), { headers: { 'access-control-allow-origin': '*' } });
}

export const { POST, PUT, PATCH, DELETE } = methodsNotAllowed('GET');
