/**
 * The dev outbox: e-mail and SMS written as files under $DATA_DIR/outbox/ instead of being sent, for
 * development (`/dev/mailbox`) and tests. Allowed only outside production, or with ALLOW_DEV_OUTBOX
 * (end-to-end tests of the production build). Files, not database rows: codes never sit in a table.
 */
import { mkdirSync, readFileSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { env } from '@/lib/env';
import { randomBase62 } from '@/lib/ids';

export type OutboxChannel = 'email' | 'sms';

export interface OutboxMessage {
  id: string;
  channel: OutboxChannel;
  to: string;
  subject?: string;
  text: string;
  at: string;
}

export function isDevOutboxAllowed(): boolean {
  return env().NODE_ENV !== 'production' || env().ALLOW_DEV_OUTBOX;
}

function outboxDir(channel: OutboxChannel): string {
  return path.resolve(env().DATA_DIR, 'outbox', channel);
}

export function writeToOutbox(message: Omit<OutboxMessage, 'id' | 'at'>): OutboxMessage {
  if (!isDevOutboxAllowed()) throw new Error('the dev outbox is disabled in production');
  const stored: OutboxMessage = { ...message, id: randomBase62(10), at: new Date().toISOString() };
  const dir = outboxDir(message.channel);
  mkdirSync(dir, { recursive: true });
  // Write then rename: a reader never sees a half-written message.
  const file = path.join(dir, `${Date.now()}-${stored.id}.json`);
  writeFileSync(`${file}.tmp`, JSON.stringify(stored), { mode: 0o600 });
  renameSync(`${file}.tmp`, file);
  return stored;
}

/** Newest first; optionally only those sent to `to`. */
export function readOutbox(channel: OutboxChannel, to?: string): OutboxMessage[] {
  let files: string[];
  try {
    files = readdirSync(outboxDir(channel));
  } catch {
    return [];
  }
  return files
    .filter((file) => file.endsWith('.json'))
    .sort()
    .reverse()
    .map((file) => JSON.parse(readFileSync(path.join(outboxDir(channel), file), 'utf8')) as OutboxMessage)
    .filter((message) => to === undefined || message.to === to);
}
