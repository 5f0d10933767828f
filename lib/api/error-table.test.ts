import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, ERROR_STATUS } from '@/lib/errors';
import { README_ERROR_TABLE_END, README_ERROR_TABLE_START, errorTableMarkdown } from './error-table';
import { renderReadmeWithErrorTable } from './render-readme-with-error-table';

const readme = readFileSync(path.resolve(import.meta.dirname, '../../docs/api.md'), 'utf8');

describe('the error table of docs/api.md', () => {
  it('is the one generated from lib/errors.ts (else run `npm run docs:errors` and commit)', async () => {
    expect(readme).toContain(README_ERROR_TABLE_START);
    expect(readme).toContain(README_ERROR_TABLE_END);
    expect((await renderReadmeWithErrorTable(readme)) === readme, 'docs/api.md error table is stale: run `npm run docs:errors`').toBe(true);
  });

  it('lists every code once with its HTTP status', () => {
    const table = errorTableMarkdown();
    for (const code of ERROR_CODES) {
      expect(table.match(new RegExp(`\\| \`${code}\` \\| ${ERROR_STATUS[code]} \\|`, 'g')), code).toHaveLength(1);
    }
  });
});
