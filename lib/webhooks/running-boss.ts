/**
 * The process's running PgBoss instance (started and stopped by queue.ts), for the code that enqueues
 * webhook jobs inside its own drizzle transaction (enqueue-deliveries.ts, enqueue-failing-notice.ts).
 */
import type { PgBoss } from 'pg-boss';

const globalForBoss = globalThis as unknown as { __chargeportWebhookBoss?: PgBoss };

export function setRunningBoss(boss: PgBoss | undefined): void {
  globalForBoss.__chargeportWebhookBoss = boss;
}

export function runningBoss(): PgBoss {
  const boss = globalForBoss.__chargeportWebhookBoss;
  if (!boss) {
    throw new Error(
      'The webhook job queue is not running in this process: start it with startWebhookQueue() (lib/jobs starts it with the background jobs).',
    );
  }
  return boss;
}

export function isBossRunning(): boolean {
  return globalForBoss.__chargeportWebhookBoss !== undefined;
}
