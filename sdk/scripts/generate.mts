/**
 * `npm run sdk:generate`: writes sdk/openapi.json and sdk/src/generated/openapi.ts from the API's
 * OpenAPI document. Run it after changing a schema in lib/ and commit both files.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { GENERATED_FILES, renderGeneratedFiles } from './codegen';

const root = path.resolve(import.meta.dirname, '../..');
const files = await renderGeneratedFiles();
for (const [name, relative] of Object.entries(GENERATED_FILES) as [keyof typeof GENERATED_FILES, string][]) {
  const target = path.join(root, relative);
  mkdirSync(path.dirname(target), { recursive: true });
  writeFileSync(target, files[name]);
  console.log(`wrote ${relative}`);
}
