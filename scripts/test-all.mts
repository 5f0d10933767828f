/**
 * `npm test`: format check, typecheck, lint, dead-code check (knip), unit + integration tests (vitest, real PostgreSQL and anvil), the web
 * SDK's tests, the production build, and the Playwright journeys in Chromium. Stops at the first
 * failing step and ends with one summary line of test counts.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';

const RESULTS = '.data/test-results';
rmSync(RESULTS, { recursive: true, force: true });
mkdirSync(RESULTS, { recursive: true });

const steps: { name: string; command: string; args: string[] }[] = [
  { name: 'format', command: 'node_modules/.bin/prettier', args: ['--check', '.', '--log-level=warn'] },
  { name: 'typecheck', command: 'node_modules/.bin/tsc', args: ['--noEmit'] },
  { name: 'lint', command: 'node_modules/.bin/eslint', args: ['.', '--max-warnings=0'] },
  { name: 'dead code', command: 'node_modules/.bin/knip', args: [] },
  { name: 'web SDK build', command: 'node_modules/.bin/tsc', args: ['-p', 'sdk/tsconfig.build.json'] },
  {
    name: 'unit and integration tests',
    command: 'node_modules/.bin/vitest',
    args: ['run', '--reporter=default', '--reporter=json', `--outputFile.json=${RESULTS}/vitest.json`],
  },
  {
    name: 'fault-injection suite',
    command: 'node_modules/.bin/vitest',
    args: [
      'run',
      '--config',
      'vitest.faults.config.ts',
      '--reporter=default',
      '--reporter=json',
      `--outputFile.json=${RESULTS}/faults.json`,
    ],
  },
  { name: 'production build', command: 'node_modules/.bin/next', args: ['build'] },
  { name: 'end-to-end tests', command: 'node_modules/.bin/playwright', args: ['test'] },
];

/**
 * A runner's exit code alone is not trusted: vitest exits 0 when its global setup throws (no test
 * runs). A test step passes only if its JSON report says it ran tests and all of them passed.
 */
const REPORTS: Record<string, () => string | undefined> = {
  'unit and integration tests': () => {
    const report = readJson(`${RESULTS}/vitest.json`);
    if (!report) return 'no vitest report was written';
    if (!report.success || report.numFailedTests > 0) return `vitest reports failure (${report.numFailedTests} failed)`;
    if (!report.numTotalTests) return 'vitest ran no test';
    return undefined;
  },
  'fault-injection suite': () => {
    const report = readJson(`${RESULTS}/faults.json`);
    if (!report) return 'no vitest report was written';
    if (!report.success || report.numFailedTests > 0) return `vitest reports failure (${report.numFailedTests} failed)`;
    if (!report.numTotalTests) return 'vitest ran no test';
    return undefined;
  },
  'end-to-end tests': () => {
    const report = readJson(`${RESULTS}/playwright.json`);
    if (!report?.stats) return 'no Playwright report was written';
    if (report.stats.unexpected > 0 || report.stats.flaky > 0)
      return `Playwright reports ${report.stats.unexpected} failed, ${report.stats.flaky} flaky`;
    if (!report.stats.expected) return 'Playwright ran no test';
    return undefined;
  },
};

let failedStep: string | undefined;
for (const step of steps) {
  const started = Date.now();
  console.log(`\n=== ${step.name} ===`);
  const result = spawnSync(step.command, step.args, { stdio: 'inherit', env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' } });
  const reportProblem = result.status === 0 ? REPORTS[step.name]?.() : undefined;
  const passed = result.status === 0 && !reportProblem;
  console.log(
    `=== ${step.name}: ${passed ? 'ok' : 'FAILED'}${reportProblem ? ` (${reportProblem})` : ''} in ${((Date.now() - started) / 1000).toFixed(1)} s ===`,
  );
  if (!passed) {
    failedStep = step.name;
    break;
  }
}

let passed = 0;
let failed = 0;
for (const report of [readJson(`${RESULTS}/vitest.json`), readJson(`${RESULTS}/faults.json`)]) {
  if (!report) continue;
  passed += report.numPassedTests ?? 0;
  failed += report.numFailedTests ?? 0;
}
const playwright = readJson(`${RESULTS}/playwright.json`);
if (playwright?.stats) {
  passed += playwright.stats.expected ?? 0;
  failed += (playwright.stats.unexpected ?? 0) + (playwright.stats.flaky ?? 0);
}
if (failedStep) failed = Math.max(failed, 1);
console.log(failedStep ? `\nnpm test failed at: ${failedStep}` : '\nnpm test: every step passed');
console.log(`tests: ${passed} passed, ${failed} failed`);
process.exit(failedStep ? 1 : 0);

function readJson(file: string): any {
  return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : undefined;
}
