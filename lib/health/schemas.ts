/** The health endpoints' bodies (also in the OpenAPI document). */
import { z } from 'zod';
import { CHAIN_NAMES } from '@/lib/chains/registry';

export const livenessSchema = z.object({ status: z.literal('ok') }).meta({ id: 'Liveness' });

export const readinessSchema = z
  .object({
    status: z.enum(['ready', 'not_ready']),
    db: z.enum(['ok', 'unreachable']),
    /** Every migration this build ships is applied (`unknown` while the database cannot be asked). */
    migrations: z.enum(['applied', 'pending', 'unknown']),
  })
  .meta({ id: 'Readiness' });
export type Readiness = z.infer<typeof readinessSchema>;

const chainHealthSchema = z
  .object({
    status: z.enum(['ok', 'unreachable', 'not_configured']),
    /** The chain's latest block (EVM; null otherwise or when unreachable). */
    head: z.number().int().nullable(),
    /** The last block the watcher has scanned (chain_cursors); null before its first poll and on Solana (no cursor). */
    cursor: z.number().int().nullable(),
    /** head − cursor: blocks the watcher is behind. */
    lagBlocks: z.number().int().nullable(),
  })
  .meta({ id: 'ChainHealth' });
export type ChainHealth = z.infer<typeof chainHealthSchema>;

export const healthReportSchema = z
  .object({
    /** ok; degraded: serving, but a configured chain is unreachable; down: not ready (database or migrations). */
    status: z.enum(['ok', 'degraded', 'down']),
    db: readinessSchema.shape.db,
    migrations: readinessSchema.shape.migrations,
    chains: z.record(z.enum(CHAIN_NAMES), chainHealthSchema),
    /** pg-boss jobs waiting (created or retry; ready = due now); null when unknown. */
    queue: z.object({ queued: z.number().int().nullable(), ready: z.number().int().nullable() }),
    /** Per chain, how the service pays gas (ADR 0035): sponsored smart-account calls, the top-up fallback (with why), or Solana's fee payer. */
    smartAccounts: z.record(
      z.enum(CHAIN_NAMES),
      z.object({ path: z.enum(['sponsored', 'topup', 'fee_payer']), reason: z.string().nullable() }),
    ),
    webhooks: z.object({
      /** Age of the oldest delivery attempt that is due and not done (pending or sending); null: none. */
      oldestDueDeliverySeconds: z.number().nullable(),
      /** Age of the oldest event still in the outbox (not relayed to deliveries); null: none. */
      oldestUnrelayedEventSeconds: z.number().nullable(),
    }),
  })
  .meta({ id: 'Health' });
export type HealthReport = z.infer<typeof healthReportSchema>;
