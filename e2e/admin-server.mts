/**
 * The admin CLI's `merchant create --verified`, kept running for one Playwright worker (e2e/admin.ts starts
 * it on first use): a fresh `tsx scripts/admin.mts` costs seconds of start-up and migration checks per
 * merchant, and the journeys create about seventy. Same database set-up as the CLI (withAdminDatabase), same
 * domain call. One JSON request per line on stdin, one JSON answer per line on stdout; it ends with stdin.
 */
import { createInterface } from 'node:readline';
import { withAdminDatabase } from '../scripts/lib/admin-database.mts';

await withAdminDatabase(async () => {
  const { createMerchant } = await import('@/lib/onboarding/create-merchant');
  for await (const line of createInterface({ input: process.stdin })) {
    const { id, email, name } = JSON.parse(line) as { id: number; email: string; name: string };
    try {
      const { merchant, keys } = await createMerchant({ email, name, verified: true });
      const key = (mode: string) => keys.find((k) => k.mode === mode)!.plaintext;
      process.stdout.write(
        `${JSON.stringify({ id, merchant: { merchantId: merchant.id, testKey: key('test'), liveKey: key('live') } })}\n`,
      );
    } catch (error) {
      process.stdout.write(`${JSON.stringify({ id, error: error instanceof Error ? error.message : String(error) })}\n`);
    }
  }
});
