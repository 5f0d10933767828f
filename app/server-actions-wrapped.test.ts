/**
 * Every server action goes through lib/api/server-actions.ts (issue 28, point 2): an action file under
 * app/ has no hand-written `try {` and no session call of its own (`requireUserForAction`,
 * `currentMemberActor`): the wrapper builds `ctx` and maps errors in one place.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '..');

/** Files allowed to keep a pattern, each with why. */
const ALLOWED: Record<string, { pattern: string; why: string }> = {
  'app/sandbox-provider/pay/[sessionId]/actions.ts': {
    pattern: 'try {',
    why: 'the sandbox stands in for a third-party provider: its errors are its API’s (not AppErrors) and its state is the provider screen’s',
  },
  'app/(auth)/actions.ts': {
    pattern: 'requireUserForAction',
    why: 'signOutEverywhereAction is a bare <form action> (no state to answer in): a refused call throws, as Next expects',
  },
};

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? walk(full) : [full];
  });
}

const actionFiles = walk(path.join(ROOT, 'app'))
  .map((file) => path.relative(ROOT, file).split(path.sep).join('/'))
  .filter((file) => /(^|\/)(actions|[\w-]+-actions)\.ts$/.test(file));

describe('server actions use the wrapper', () => {
  it('finds the action files', () => {
    expect(actionFiles.length).toBeGreaterThan(20);
  });

  for (const pattern of ['try {', 'requireUserForAction', 'currentMemberActor']) {
    it(`no action file contains ${pattern} (outside its allow-list line)`, () => {
      const offenders = actionFiles.filter(
        (file) => readFileSync(path.join(ROOT, file), 'utf8').includes(pattern) && ALLOWED[file]?.pattern !== pattern,
      );
      expect(offenders).toEqual([]);
    });
  }

  it('every allow-list entry is still needed', () => {
    const stale = Object.entries(ALLOWED).filter(([file, { pattern }]) => !readFileSync(path.join(ROOT, file), 'utf8').includes(pattern));
    expect(stale).toEqual([]);
  });
});
