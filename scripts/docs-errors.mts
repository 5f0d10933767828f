/**
 * `npm run docs:errors`: writes the error table of docs/api.md (between its markers) from lib/errors.ts, the
 * table the code answers with. lib/api/error-table.test.ts fails while docs/api.md differs.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { renderReadmeWithErrorTable } from '@/lib/api/render-readme-with-error-table';

const file = path.resolve(import.meta.dirname, '../docs/api.md');
writeFileSync(file, await renderReadmeWithErrorTable(readFileSync(file, 'utf8')));
console.log('wrote the error table of docs/api.md');
