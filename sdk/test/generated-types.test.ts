import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { GENERATED_FILES, renderGeneratedFiles } from '../scripts/codegen';

const root = path.resolve(import.meta.dirname, '../..');

describe('generated SDK files', () => {
  it('match the current OpenAPI document (else run `npm run sdk:generate` and commit)', async () => {
    const fresh = await renderGeneratedFiles();
    for (const [name, relative] of Object.entries(GENERATED_FILES) as [keyof typeof GENERATED_FILES, string][]) {
      const committed = readFileSync(path.join(root, relative), 'utf8');
      expect(committed === fresh[name], `${relative} is stale: run \`npm run sdk:generate\` and commit the result`).toBe(true);
    }
    expect(fresh.openapiTypes).toContain('"/api/createCharge"');
  });
});
