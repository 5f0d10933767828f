/**
 * What test/faults/run-job.mts runs in a process of its own for the database and crash fault files: an
 * app request or a worker's job, which may die by SIGKILL at a crash point (CHARGEPORT_CRASH_AT), or
 * crash on its own when its database connection is terminated under it.
 */
import type { CrashPoint } from '@/lib/crash-points';
import type { WithdrawalInput } from '@/lib/merchants/withdraw';
import type { RefundContext } from '@/lib/refunds/create-refund';
import { spawnFaultProcess } from './spawn-fault-process';

export type Job =
  | { op: 'pay'; userId: string; chargeId: string; pin: string }
  | { op: 'withdraw'; input: WithdrawalInput }
  | { op: 'refund'; ctx: RefundContext; chargeId: string; idempotencyKey: string }
  | { op: 'sweep'; chargeId: string }
  | { op: 'reconcile' }
  | { op: 'poll'; chain: string }
  | { op: 'relay' }
  | { op: 'pay-orders' }
  | { op: 'provider-webhook'; providerId: string; rawBody: string; headers: Record<string, string> }
  | { op: 'fulfil' };

export interface JobRun {
  /** Died by SIGKILL (a crash point). */
  killed: boolean;
  /** Exit code when it ended on its own (non-zero: it crashed). */
  exitCode: number | null;
  /** The job's answer when it finished: its result, or the error's code and message. */
  output: { ok: boolean; result?: unknown; code?: string | null; message?: string } | null;
  stderr: string;
}

export async function runJob(job: Job, crashAt?: CrashPoint): Promise<JobRun> {
  const { code, signal, line, stderr } = await spawnFaultProcess('test/faults/run-job.mts', job, crashAt);
  return { killed: signal === 'SIGKILL', exitCode: code, output: line ? JSON.parse(line) : null, stderr: stderr.slice(-3000) };
}
