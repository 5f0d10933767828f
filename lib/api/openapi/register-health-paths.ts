/** The health probes (the full report, readiness, liveness; no key), the Prometheus metrics and this document. */
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type { z } from 'zod';
import { healthReportSchema, livenessSchema, readinessSchema } from '@/lib/health/schemas';
import { METRICS_TOKEN, NO_AUTH, TAGS, operation } from './operation';

export function registerHealthPaths(registry: OpenAPIRegistry) {
  const healthJson = (schema: z.ZodType, example: unknown) => ({ 'application/json': { schema, example } });
  const polygon = { status: 'ok', head: 68123456, cursor: 68123455, lagBlocks: 1 };
  const report = (status: 'ok' | 'down') => ({
    status,
    db: status === 'ok' ? 'ok' : 'unreachable',
    migrations: status === 'ok' ? 'applied' : 'unknown',
    chains: { POLYGON: polygon, SOLANA: { status: 'not_configured', head: null, cursor: null, lagBlocks: null } },
    queue: { queued: 0, ready: 0 },
    smartAccounts: {
      POLYGON: { path: 'sponsored', reason: null },
      DFK: { path: 'topup', reason: 'DFK runs Subnet-EVM, which has no EIP-7702' },
      SOLANA: { path: 'fee_payer', reason: null },
    },
    webhooks: { oldestDueDeliverySeconds: null, oldestUnrelayedEventSeconds: null },
  });
  registry.registerPath(
    operation({
      method: 'get',
      path: '/api/health',
      operationId: 'getHealth',
      tags: [TAGS.health],
      summary: 'Service health (full report)',
      description:
        "Readiness, each chain (ok, unreachable or not_configured, and its watcher's lag in blocks), the job queue's depth and the age of the oldest webhook work waiting. 200 while the instance can serve, also when a chain is unreachable (status degraded); 503 when it cannot (status down).",
      security: NO_AUTH,
      responses: {
        200: { description: 'Serving: status ok or degraded.', content: healthJson(healthReportSchema, report('ok')) },
        503: {
          description: 'Not serving: status down (database unreachable or migrations pending).',
          content: healthJson(healthReportSchema, report('down')),
        },
      },
      samples: { curl: 'curl -s $CHARGEPORT_URL/api/health', node: 'const report = await (await fetch(`${url}/api/health`)).json();' },
    }),
  );
  registry.registerPath(
    operation({
      method: 'get',
      path: '/api/health/ready',
      operationId: 'getReadiness',
      tags: [TAGS.health],
      summary: 'Readiness probe',
      description: 'For load balancers: the database answers and every migration is applied. Chains are not checked.',
      security: NO_AUTH,
      responses: {
        200: { description: 'Ready.', content: healthJson(readinessSchema, { status: 'ready', db: 'ok', migrations: 'applied' }) },
        503: { description: 'Not ready.', content: healthJson(readinessSchema, { status: 'not_ready', db: 'ok', migrations: 'pending' }) },
      },
      samples: { curl: 'curl -s $CHARGEPORT_URL/api/health/ready', node: 'const ready = (await fetch(`${url}/api/health/ready`)).ok;' },
    }),
  );
  registry.registerPath(
    operation({
      method: 'get',
      path: '/api/health/live',
      operationId: 'getLiveness',
      tags: [TAGS.health],
      summary: 'Liveness probe',
      description: 'The process answers; nothing else is checked.',
      security: NO_AUTH,
      responses: { 200: { description: 'Alive.', content: healthJson(livenessSchema, { status: 'ok' }) } },
      samples: { curl: 'curl -s $CHARGEPORT_URL/api/health/live', node: 'const alive = (await fetch(`${url}/api/health/live`)).ok;' },
    }),
  );
  const text = (example: string) => ({ 'text/plain': { schema: { type: 'string' as const }, example } });
  registry.registerPath(
    operation({
      method: 'get',
      path: '/api/metrics',
      operationId: 'getMetrics',
      tags: [TAGS.health],
      summary: 'Prometheus metrics',
      description:
        "This instance's metrics in the Prometheus text format, behind the operator's METRICS_TOKEN. Without METRICS_TOKEN the server answers 404, as if there were no such endpoint. See docs/operations.md.",
      security: METRICS_TOKEN,
      responses: {
        200: {
          description: 'The metrics (text/plain; version=0.0.4).',
          content: text('# HELP chargeport_http_requests_total HTTP requests by route and status.\n'),
        },
        401: {
          description: 'Wrong or missing token.',
          headers: { 'WWW-Authenticate': { schema: { type: 'string', example: 'Bearer' } } },
          content: text('Unauthorized: send Authorization: Bearer <METRICS_TOKEN>\n'),
        },
        404: { description: 'METRICS_TOKEN is not set on this server.', content: text('Not found\n') },
      },
      samples: {
        curl: 'curl -s $CHARGEPORT_URL/api/metrics -H "Authorization: Bearer $METRICS_TOKEN"',
        node: 'const text = await (await fetch(`${url}/api/metrics`, { headers: { authorization: `Bearer ${token}` } })).text();',
      },
    }),
  );
  registry.registerPath(
    operation({
      method: 'get',
      path: '/api/openapi.json',
      operationId: 'getOpenApiDocument',
      tags: [TAGS.health],
      summary: 'This OpenAPI document',
      description:
        'The OpenAPI 3.1 document of this deployment (its `servers` entry is this server), rendered at /docs/api. No key; any origin.',
      security: NO_AUTH,
      responses: {
        200: {
          description: 'The document.',
          content: {
            'application/json': {
              schema: {
                type: 'object' as const,
                properties: { openapi: { type: 'string' as const }, info: { type: 'object' as const }, paths: { type: 'object' as const } },
                required: ['openapi', 'info', 'paths'],
              },
              example: { openapi: '3.1.0', info: { title: 'Chargeport API', version: '1.0.0' }, paths: {} },
            },
          },
        },
      },
      samples: {
        curl: 'curl -s $CHARGEPORT_URL/api/openapi.json',
        node: 'const document = await (await fetch(`${url}/api/openapi.json`)).json();',
      },
    }),
  );
}
