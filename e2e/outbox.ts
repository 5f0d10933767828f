import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { expect } from '@playwright/test';
import { E2E_DATA_DIR } from '../playwright.config';

/** Codes the e2e stack "sent": its dev outbox ($DATA_DIR/outbox), as a real mailbox would hold them. */
function latestMessageTo(
  channel: 'email' | 'sms',
  to: string,
  matching: (text: string) => boolean = () => true,
): { text: string; at: string } | undefined {
  const dir = path.join(E2E_DATA_DIR, 'outbox', channel);
  let files: string[] = [];
  try {
    files = readdirSync(dir).sort().reverse();
  } catch {
    return undefined;
  }
  for (const file of files.filter((name) => name.endsWith('.json'))) {
    const message = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as { to: string; text: string; at: string };
    if (message.to === to && matching(message.text)) return message;
  }
  return undefined;
}

/** Every e-mail to `to` so far, newest first (for what a mailbox must not hold). */
export function emailsTo(to: string): string[] {
  const dir = path.join(E2E_DATA_DIR, 'outbox', 'email');
  const files = readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .reverse();
  return files
    .map((file) => JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as { to: string; text: string })
    .filter((message) => message.to === to)
    .map((message) => message.text);
}

/** Waits for an e-mail to `to` whose text matches `pattern` (the newest such); returns the first capture group. */
export async function waitForEmailMatch(to: string, pattern: RegExp): Promise<string> {
  let match: string | undefined;
  await expect
    .poll(
      () => {
        match = latestMessageTo('email', to, (text) => pattern.test(text))?.text.match(pattern)?.[1];
        return match !== undefined;
      },
      { timeout: 10_000 },
    )
    .toBe(true);
  return match!;
}

/**
 * Waits for a code sent to `to` that differs from `previous` (a new code, not the last one). Messages
 * without a code (the security notices every factor change sends) are passed over.
 */
export async function waitForCode(to: string, options: { channel?: 'email' | 'sms'; previous?: string } = {}): Promise<string> {
  let code: string | undefined;
  await expect
    .poll(
      () => {
        code = latestMessageTo(options.channel ?? 'email', to, (text) => /\b\d{6}\b/.test(text))?.text.match(/\b(\d{6})\b/)?.[1];
        return code !== undefined && code !== options.previous;
      },
      { timeout: 10_000 },
    )
    .toBe(true);
  return code!;
}

export function uniqueEmail(prefix: string): string {
  return `${prefix}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@players.example`;
}
