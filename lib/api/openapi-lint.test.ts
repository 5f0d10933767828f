import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from './openapi';

const dir = mkdtempSync(path.join(tmpdir(), 'chargeport-openapi-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the OpenAPI document under Redocly's recommended rules", () => {
  it('has no error, and no warning but the health probes and the document itself having no 4xx answer (they have none)', () => {
    const file = path.join(dir, 'openapi.json');
    // A deployment's URL (the served document names APP_URL; localhost would be flagged, rightly, as a placeholder).
    writeFileSync(file, JSON.stringify(buildOpenApiDocument('https://pay.chargeport.invalid')));
    const result = spawnSync('node_modules/.bin/redocly', ['lint', file, '--extends', 'recommended', '--format', 'json'], {
      encoding: 'utf8',
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      timeout: 60_000,
    });
    const report = JSON.parse(result.stdout) as {
      totals: { errors: number; warnings: number };
      problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[];
    };
    const problems = report.problems.map((p) => `${p.severity} ${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`);
    expect(report.totals.errors, problems.join('\n')).toBe(0);
    const unexpected = report.problems.filter(
      (p) => !(p.ruleId === 'operation-4xx-response' && /^#\/paths\/~1api~1(health|openapi\.json)/.test(p.location[0]?.pointer ?? '')),
    );
    expect(unexpected, problems.join('\n')).toEqual([]);
  });
});
