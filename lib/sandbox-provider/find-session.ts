import { eq } from 'drizzle-orm';
import { getDb } from '@/lib/db/client';
import { sandboxProviderSessions, type SandboxProviderSessionRow } from '@/lib/db/schema/sandbox-provider';

export async function findSession(sessionId: string): Promise<SandboxProviderSessionRow | undefined> {
  const [row] = await getDb().select().from(sandboxProviderSessions).where(eq(sandboxProviderSessions.id, sessionId));
  return row;
}
