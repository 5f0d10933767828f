/** Moving a session along its state machine (state.ts), one guarded UPDATE per step. */
import { and, eq, gt, inArray } from 'drizzle-orm';
import { getDb } from '@/lib/db/client';
import { sandboxProviderSessions, type SandboxProviderSessionRow, type SandboxSessionStatus } from '@/lib/db/schema/sandbox-provider';
import { sandboxSessionMachine } from './state';

/**
 * Moves the session from one of `from` to `to`, only if it is still there (and, with `unexpiredAt`,
 * not expired at that time). Undefined when another request got there first: callers treat that as
 * "already handled", which is what makes a double click pay once.
 */
export async function transitionSession(input: {
  sessionId: string;
  from: readonly SandboxSessionStatus[];
  to: SandboxSessionStatus;
  set?: Partial<Pick<SandboxProviderSessionRow, 'paidWith' | 'cardLast4' | 'failureReason' | 'txHash'>>;
  unexpiredAt?: Date;
}): Promise<SandboxProviderSessionRow | undefined> {
  const from = input.from.filter((status) => sandboxSessionMachine.can(status, input.to));
  if (from.length === 0) throw new Error(`no transition from ${input.from.join('/')} to ${input.to}`);
  const t = sandboxProviderSessions;
  const [row] = await getDb()
    .update(t)
    .set({ ...input.set, status: input.to })
    .where(and(eq(t.id, input.sessionId), inArray(t.status, from), input.unexpiredAt ? gt(t.expiresAt, input.unexpiredAt) : undefined))
    .returning();
  return row;
}
