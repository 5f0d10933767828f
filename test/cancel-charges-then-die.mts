/**
 * Run as its own process by lib/webhooks/durability.test.ts: cancels the given charges in one
 * transaction and SIGKILLs itself the instant COMMIT returns — the app dying between a state change and
 * anything that would follow it. Whatever survives is what the transaction wrote (the outbox rows).
 *
 *   node --import tsx test/cancel-charges-then-die.mts <chargeId>…   (DATABASE_URL and secrets in env)
 */
import { transitionCharge } from '@/lib/charges/transition-charge';
import { getDb } from '@/lib/db/client';

const chargeIds = process.argv.slice(2);
if (chargeIds.length === 0) {
  console.error('usage: cancel-charges-then-die.mts <chargeId>…');
  process.exit(2);
}
await getDb().transaction(async (tx) => {
  for (const chargeId of chargeIds) await transitionCharge(tx, { chargeId, to: 'canceled', actor: 'test' });
});
process.kill(process.pid, 'SIGKILL');
