/**
 * Publishable keys are public by design (they sit in the merchant's web page), so what one can do is
 * bounded by origins the merchant sets in the dashboard:
 *
 *  - allowed origins: the web pages that may call the API with the key. A browser request from any
 *    other origin is refused (403 origin_not_allowed) and gets no CORS grant. Requests without an
 *    Origin (not from a browser page) are not refused: anyone can forge an Origin outside a browser,
 *    so for them the per-IP limit and the open-charge cap are what holds;
 *  - allowed redirect origins: where charges created with the key may send the buyer back
 *    (successUrl / cancelUrl). None by default: such a URL is refused (403 redirect_not_allowed), so a
 *    copied key cannot make our checkout send buyers to a phishing page.
 *
 * Origins are stored normalised (`https://shop.example`, `http://localhost:5173`): https, or http
 * for localhost only.
 */
import { and, eq } from 'drizzle-orm';
import { recordAudit } from '@/lib/audit/record-audit';
import { getDb } from '@/lib/db/client';
import { apiKeys, type ApiKey } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';
import { authorizeMember } from '@/lib/merchants/permissions';
import { forgetMerchantCredentials } from '@/lib/merchants/credential-cache';

const MAX_ORIGINS = 20;
const LOCALHOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** "https://Shop.example/path" → "https://shop.example"; throws invalid_request naming the field. */
function normaliseOrigin(value: string, param: string): string {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new AppError('invalid_request', `"${value}" is not an origin. Write it like https://shop.example.`, { param });
  }
  const isLocal = LOCALHOSTS.has(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLocal)) {
    throw new AppError('invalid_request', `"${value}" must use https (http only for localhost).`, { param });
  }
  return url.origin;
}

export function parseOrigins(text: string, param: string): string[] {
  const origins = [
    ...new Set(
      text
        .split(/[\s,]+/)
        .filter(Boolean)
        .map((value) => normaliseOrigin(value, param)),
    ),
  ];
  if (origins.length > MAX_ORIGINS) throw new AppError('invalid_request', `At most ${MAX_ORIGINS} origins.`, { param });
  return origins;
}

export async function setPublishableKeyOrigins(input: {
  userId: string;
  merchantId: string;
  ip?: string | null;
  keyId: string;
  allowedOrigins: string;
  allowedRedirectOrigins: string;
}): Promise<void> {
  const allowedOrigins = parseOrigins(input.allowedOrigins, 'allowedOrigins');
  const allowedRedirectOrigins = parseOrigins(input.allowedRedirectOrigins, 'allowedRedirectOrigins');
  await getDb().transaction(async (tx) => {
    const actor = await authorizeMember(tx, { ...input, permission: 'api_keys.manage' });
    const [updated] = await tx
      .update(apiKeys)
      .set({ allowedOrigins, allowedRedirectOrigins, updatedAt: new Date() })
      .where(and(eq(apiKeys.id, input.keyId), eq(apiKeys.merchantId, input.merchantId), eq(apiKeys.kind, 'publishable')))
      .returning({ id: apiKeys.id, mode: apiKeys.mode });
    if (!updated) throw new AppError('not_found', `No publishable key ${input.keyId}.`, { param: 'keyId' });
    await recordAudit(tx, {
      actor,
      action: 'api_key.set_origins',
      targetId: updated.id,
      mode: updated.mode,
      data: { allowedOrigins, allowedRedirectOrigins },
      ip: input.ip,
    });
  });
  forgetMerchantCredentials(input.merchantId);
}

/** The request's browser origin must be allowed for a publishable key (none → not a browser page: allowed). */
export function assertOriginAllowed(apiKey: ApiKey, origin: string | null): void {
  if (apiKey.kind !== 'publishable' || origin === null) return;
  if (apiKey.allowedOrigins.includes(origin)) return;
  throw new AppError(
    'origin_not_allowed',
    `This publishable key may not be used from ${origin}. Add the origin to the key's allowed origins in the dashboard (Settings → API Keys).`,
  );
}

/** A URL a charge of a publishable key sends the buyer to must be on one of the key's redirect origins. */
export function assertRedirectAllowed(apiKey: ApiKey, url: string | undefined, param: string): void {
  if (apiKey.kind !== 'publishable' || url === undefined) return;
  let origin: string | undefined;
  try {
    origin = new URL(url).origin;
  } catch {
    origin = undefined;
  }
  if (origin && apiKey.allowedRedirectOrigins.includes(origin)) return;
  throw new AppError(
    'redirect_not_allowed',
    apiKey.allowedRedirectOrigins.length
      ? `${param} must be on one of this publishable key's redirect origins (${apiKey.allowedRedirectOrigins.join(', ')}). Add ${origin ?? 'its origin'} in the dashboard (Settings → API Keys), or create the charge with a secret key.`
      : `This publishable key has no allowed redirect origins, so ${param} is refused. Add your site's origin in the dashboard (Settings → API Keys), or create the charge with a secret key.`,
    { param },
  );
}
