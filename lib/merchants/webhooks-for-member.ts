/**
 * The dashboard's Webhooks tab (every export is a `…ForMember` action): endpoints of the dashboard's
 * mode, their secrets, the delivery log, resends and test events — as a member whose role allows it (lib/merchants/permissions.ts), over the
 * same endpoint verbs as the API (scoped by merchant and mode), each change audited in its transaction.
 *
 *  - Reading (endpoints, the delivery log) needs `dashboard.view`; everything else `webhooks.manage`.
 *  - Revealing a secret is a change for these purposes: it needs `webhooks.manage` and is audited.
 *  - Audit entries never hold a secret.
 *  - In live mode, creating, changing, deleting an endpoint or rotating its secret needs the member's
 *    PIN or a passkey (step-up), and every owner is e-mailed (notify-endpoint-change.ts): a live
 *    endpoint decides where payment events go.
 */
import { recordAudit } from '@/lib/audit/record-audit';
import { getDb, type DbOrTx } from '@/lib/db/client';
import type { ApiKeyMode } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';
import { verifyStepUp, type StepUpProof } from '@/lib/accounts/step-up';
import { authorizeMember } from '@/lib/merchants/permissions';
import { notifyWebhookEndpointChange, type EndpointChange } from './notify-endpoint-change';
import { createWebhookEndpoint } from '@/lib/webhooks/create-webhook-endpoint';
import { acceptEndpointUrl } from '@/lib/webhooks/endpoint-url';
import { deleteWebhookEndpoint } from '@/lib/webhooks/delete-webhook-endpoint';
import { getWebhookEndpoint, type WebhookOwner } from '@/lib/webhooks/get-webhook-endpoint';
import { listWebhookDeliveries, type DeliveryLogEntry } from '@/lib/webhooks/list-deliveries';
import { listWebhookEndpoints } from '@/lib/webhooks/list-webhook-endpoints';
import { resendWebhookEvent } from '@/lib/webhooks/resend-webhook-event';
import { revealWebhookSecret } from '@/lib/webhooks/reveal-webhook-secret';
import { rotateWebhookSecret } from '@/lib/webhooks/rotate-webhook-secret';
import type { CreateWebhookEndpointBody, UpdateWebhookEndpointBody, WebhookEndpointResource } from '@/lib/webhooks/schemas';
import { sendTestWebhookEvent } from '@/lib/webhooks/send-test-event';
import { serializeWebhookEndpoint } from '@/lib/webhooks/serialize';
import { updateWebhookEndpoint } from '@/lib/webhooks/update-webhook-endpoint';

/** How long a rotated secret keeps signing next to the new one: the dashboard's choices (hours). */
const SECRET_OVERLAPS_HOURS = [0, 1, 24, 168] as const;
export type SecretOverlapHours = (typeof SECRET_OVERLAPS_HOURS)[number];

export interface WebhookActor {
  userId: string;
  merchantId: string;
  /** The dashboard's test/live switch: only this mode's endpoints exist for the call. */
  mode: ApiKeyMode;
  ip?: string | null;
  /** The PIN or a passkey: required for live-mode endpoint changes. */
  stepUp?: StepUpProof;
}

const ownerOf = (actor: WebhookActor): WebhookOwner => ({ merchantId: actor.merchantId, mode: actor.mode });

/**
 * Runs `change` in one transaction with the role check and its audit entry. With `notify` (an
 * endpoint change), a live-mode change needs a step-up first and the owners hear of it after commit.
 */
async function audited<T>(
  actor: WebhookActor,
  change: (tx: DbOrTx) => Promise<{ result: T; audit: { action: string; targetId: string; data?: Record<string, unknown> }; url?: string }>,
  notify?: EndpointChange,
): Promise<T> {
  if (notify && actor.mode === 'live') {
    await authorizeMember(getDb(), { userId: actor.userId, merchantId: actor.merchantId, permission: 'webhooks.manage' });
    await verifyStepUp({
      userId: actor.userId,
      proof: actor.stepUp ?? {},
      mode: 'live',
      attempt: { action: 'webhook_endpoint_change', merchantId: actor.merchantId, mode: 'live', ip: actor.ip },
    });
  }
  const { result, audit, url } = await getDb().transaction(async (tx) => {
    const member = await authorizeMember(tx, { userId: actor.userId, merchantId: actor.merchantId, permission: 'webhooks.manage' });
    const outcome = await change(tx);
    await recordAudit(tx, { actor: member, ...outcome.audit, mode: actor.mode, ip: actor.ip });
    return outcome;
  });
  if (notify) {
    await notifyWebhookEndpointChange({
      merchantId: actor.merchantId,
      mode: actor.mode,
      actorUserId: actor.userId,
      ip: actor.ip,
      change: notify,
      endpoint: { id: audit.targetId, url: url ?? '' },
    });
  }
  return result;
}

async function authorizeReader(actor: WebhookActor): Promise<void> {
  await authorizeMember(getDb(), { userId: actor.userId, merchantId: actor.merchantId, permission: 'dashboard.view' });
}

export async function listWebhookEndpointsForMember(actor: WebhookActor): Promise<WebhookEndpointResource[]> {
  await authorizeReader(actor);
  return (await listWebhookEndpoints({ owner: ownerOf(actor) })).map((row) => serializeWebhookEndpoint(row));
}

export async function getWebhookEndpointForMember(actor: WebhookActor & { endpointId: string }): Promise<WebhookEndpointResource> {
  await authorizeReader(actor);
  return serializeWebhookEndpoint(await getWebhookEndpoint({ owner: ownerOf(actor), endpointId: actor.endpointId }));
}

export async function listWebhookDeliveriesForMember(
  actor: WebhookActor & { endpointId: string; eventId?: string; before?: string },
): Promise<{ deliveries: DeliveryLogEntry[]; hasMore: boolean }> {
  await authorizeReader(actor);
  return listWebhookDeliveries({ owner: ownerOf(actor), endpointId: actor.endpointId, eventId: actor.eventId, before: actor.before });
}

export async function createWebhookEndpointForMember(
  actor: WebhookActor & { input: CreateWebhookEndpointBody },
): Promise<WebhookEndpointResource> {
  // A mistyped URL is refused before the step-up: it must not cost a PIN attempt.
  acceptEndpointUrl(actor.input.url, actor.mode);
  return audited(
    actor,
    async (tx) => {
      const { endpoint } = await createWebhookEndpoint({ owner: ownerOf(actor), input: actor.input, db: tx });
      return {
        result: serializeWebhookEndpoint(endpoint),
        audit: {
          action: 'webhook_endpoint.create',
          targetId: endpoint.id,
          data: { url: endpoint.url, eventTypes: endpoint.eventTypes, enabled: endpoint.enabled },
        },
        url: endpoint.url,
      };
    },
    'created',
  );
}

export async function updateWebhookEndpointForMember(
  actor: WebhookActor & { endpointId: string; input: UpdateWebhookEndpointBody },
): Promise<WebhookEndpointResource> {
  if (actor.input.url !== undefined) acceptEndpointUrl(actor.input.url, actor.mode);
  return audited(
    actor,
    async (tx) => {
      const endpoint = await updateWebhookEndpoint({ owner: ownerOf(actor), endpointId: actor.endpointId, input: actor.input, db: tx });
      return {
        result: serializeWebhookEndpoint(endpoint),
        // What was asked for (the new values), not the secret: there is none in an update.
        audit: { action: 'webhook_endpoint.update', targetId: endpoint.id, data: { ...actor.input } },
        url: endpoint.url,
      };
    },
    'updated',
  );
}

export async function deleteWebhookEndpointForMember(actor: WebhookActor & { endpointId: string }): Promise<void> {
  await audited(
    actor,
    async (tx) => {
      const endpoint = await getWebhookEndpoint({ owner: ownerOf(actor), endpointId: actor.endpointId, db: tx });
      await deleteWebhookEndpoint({ owner: ownerOf(actor), endpointId: endpoint.id, db: tx });
      return {
        result: undefined,
        audit: { action: 'webhook_endpoint.delete', targetId: endpoint.id, data: { url: endpoint.url } },
        url: endpoint.url,
      };
    },
    'deleted',
  );
}

export async function revealWebhookSecretForMember(
  actor: WebhookActor & { endpointId: string },
): Promise<{ secret: string; previous: { secret: string; expiresAt: Date } | null }> {
  return audited(actor, async (tx) => {
    const revealed = await revealWebhookSecret({ owner: ownerOf(actor), endpointId: actor.endpointId, db: tx });
    return { result: revealed, audit: { action: 'webhook_endpoint.reveal_secret', targetId: actor.endpointId } };
  });
}

export async function rotateWebhookSecretForMember(
  actor: WebhookActor & { endpointId: string; overlapHours: SecretOverlapHours },
  now = new Date(),
): Promise<{ secret: string; previousSecretExpiresAt: string | null }> {
  if (!SECRET_OVERLAPS_HOURS.includes(actor.overlapHours)) {
    throw new AppError('invalid_request', `The overlap is one of ${SECRET_OVERLAPS_HOURS.join(', ')} hours.`, { param: 'overlapHours' });
  }
  return audited(
    actor,
    async (tx) => {
      const { endpoint, secret } = await rotateWebhookSecret({
        owner: ownerOf(actor),
        endpointId: actor.endpointId,
        overlapHours: actor.overlapHours,
        now,
        db: tx,
      });
      const previousSecretExpiresAt = serializeWebhookEndpoint(endpoint, now).previousSecretExpiresAt;
      return {
        result: { secret, previousSecretExpiresAt },
        audit: {
          action: 'webhook_endpoint.rotate_secret',
          targetId: endpoint.id,
          data: { overlapHours: actor.overlapHours, previousSecretExpiresAt },
        },
        url: endpoint.url,
      };
    },
    'secret rotated',
  );
}

export async function sendTestWebhookEventForMember(
  actor: WebhookActor & { endpointId: string },
): Promise<{ eventId: string; deliveryId: string }> {
  return audited(actor, async (tx) => {
    const { event, delivery } = await sendTestWebhookEvent({ owner: ownerOf(actor), endpointId: actor.endpointId, db: tx });
    return {
      result: { eventId: event.id, deliveryId: delivery.id },
      audit: {
        action: 'webhook_endpoint.send_test_event',
        targetId: actor.endpointId,
        data: { eventId: event.id, deliveryId: delivery.id },
      },
    };
  });
}

export async function resendWebhookEventForMember(
  actor: WebhookActor & { endpointId: string; eventId: string },
): Promise<{ deliveryId: string; attempt: number }> {
  return audited(actor, async (tx) => {
    const delivery = await resendWebhookEvent({ owner: ownerOf(actor), endpointId: actor.endpointId, eventId: actor.eventId, db: tx });
    return {
      result: { deliveryId: delivery.id, attempt: delivery.attempt },
      audit: {
        action: 'webhook_event.resend',
        targetId: actor.eventId,
        data: { endpointId: actor.endpointId, deliveryId: delivery.id, attempt: delivery.attempt },
      },
    };
  });
}
