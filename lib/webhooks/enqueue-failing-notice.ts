/** Enqueues, in the caller's transaction, the e-mail telling a merchant its endpoint turned failing. */
import { sql } from 'drizzle-orm';
import { fromDrizzle } from 'pg-boss';
import type { DbOrTx } from '@/lib/db/client';
import { runningBoss } from './running-boss';

/** One job per endpoint that just became failing: the merchant's e-mail. */
export const FAILING_NOTICE_QUEUE = 'webhook-endpoint-failing';

export interface FailingNoticeJobData {
  endpointId: string;
}

export async function enqueueFailingNotice(tx: DbOrTx, endpointId: string): Promise<void> {
  await runningBoss().send(FAILING_NOTICE_QUEUE, { endpointId } satisfies FailingNoticeJobData, { db: fromDrizzle(tx, sql) });
}
