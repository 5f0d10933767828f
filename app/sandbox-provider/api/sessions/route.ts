// POST /sandbox-provider/api/sessions — Sandpiper Pay: a partner opens a checkout session for one of its orders
import { createSession } from '@/lib/sandbox-provider/create-session';
import { handleProviderRequest, providerJson, readJsonBody, requirePartner } from '@/lib/sandbox-provider/handle-provider-request';

export async function POST(request: Request): Promise<Response> {
  return handleProviderRequest(async () => {
    requirePartner(request);
    const { session, url, created } = await createSession(await readJsonBody(request));
    return providerJson({ sessionId: session.id, url, expiresAt: session.expiresAt.toISOString() }, created ? 201 : 200);
  });
}
