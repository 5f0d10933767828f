// GET /docs/api — the API reference, rendered by Redoc from /api/openapi.json (lib/docs/api-reference-response.ts).
import { apiReferenceResponse } from '@/lib/docs/api-reference-response';

export function GET(request: Request): Response {
  return apiReferenceResponse({
    isDevelopment: process.env.NODE_ENV === 'development',
    // Behind a TLS-terminating proxy, the scheme comes from X-Forwarded-Proto.
    isHttps: (request.headers.get('x-forwarded-proto') ?? new URL(request.url).protocol.replace(':', '')) === 'https',
  });
}
