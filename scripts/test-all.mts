/**
 * `npm test`: format check, typecheck, lint, dead-code check (knip), unit + integration tests (vitest, real PostgreSQL and anvil), the web
 * SDK's tests, the production build, and the Playwright journeys in Chromium. Stops at the first
 * failing stage and ends with one summary line of test counts.
 *
 * Steps run in stages, the steps of a stage side by side (CI has two cores and 30 minutes): the static
 * checks together; the fault suite beside the production build (the suite mostly waits on the processes
 * it kills and restarts; the build never touches what the suite runs). A side-by-side step's output is
 * printed in one piece when it ends, so it does not interleave. Vitest runs alone: its `next dev` stack
 * test and its timings share nothing with a build.
 *
 * Every step runs on this process's Node (bins start through `#!/usr/bin/env node` with npm's PATH, spawned
 * servers reuse process.execPath): it refuses to start below the floor `engines` declares, so the floor
 * declared is the one tested.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { nodeRuntimeProblem, readNodePins } from './lib/node-runtime.mts';

console.log(`npm test on Node ${process.version} (${process.execPath})`);
const runtimeProblem = nodeRuntimeProblem(process.versions.node, readNodePins());
if (runtimeProblem) {
  console.error(runtimeProblem);
  process.exit(1);
}

const RESULTS = '.data/test-results';
rmSync(RESULTS, { recursive: true, force: true });
mkdirSync(RESULTS, { recursive: true });

interface Step {
  name: string;
  command: string;
  args: string[];
}

/** In this order; the steps of one stage side by side. */
const stages: Step[][] = [
  [
    { name: 'format', command: 'node_modules/.bin/prettier', args: ['--check', '.', '--log-level=warn'] },
    { name: 'typecheck', command: 'node_modules/.bin/tsc', args: ['--noEmit'] },
    { name: 'lint', command: 'node_modules/.bin/eslint', args: ['.', '--max-warnings=0'] },
    { name: 'tiers', command: 'node_modules/.bin/depcruise', args: ['lib', 'app', 'components', '--config', '.dependency-cruiser.mjs'] },
    { name: 'dead code', command: 'node_modules/.bin/knip', args: [] },
    { name: 'web SDK build', command: 'node_modules/.bin/tsc', args: ['-p', 'sdk/tsconfig.build.json'] },
  ],
  [
    {
      name: 'unit and integration tests',
      command: 'node_modules/.bin/vitest',
      args: ['run', '--reporter=default', '--reporter=json', `--outputFile.json=${RESULTS}/vitest.json`],
    },
  ],
  [
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
  ],
  [{ name: 'end-to-end tests', command: 'node_modules/.bin/playwright', args: ['test'] }],
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

const ENV = { ...process.env, NEXT_TELEMETRY_DISABLED: '1' };

function finishStep(step: Step, status: number | null, started: number): boolean {
  const reportProblem = status === 0 ? REPORTS[step.name]?.() : undefined;
  const passed = status === 0 && !reportProblem;
  console.log(
    `=== ${step.name}: ${passed ? 'ok' : 'FAILED'}${reportProblem ? ` (${reportProblem})` : ''} in ${((Date.now() - started) / 1000).toFixed(1)} s ===`,
  );
  return passed;
}

/** Runs the steps side by side; each one's output is printed in one piece when it ends. */
async function runTogether(group: Step[]): Promise<string[]> {
  const started = Date.now();
  const results = await Promise.all(
    group.map(
      (step) =>
        new Promise<{ step: Step; passed: boolean }>((resolve) => {
          const child = spawn(step.command, step.args, { env: ENV, stdio: ['ignore', 'pipe', 'pipe'] });
          const output: Buffer[] = [];
          child.stdout.on('data', (chunk: Buffer) => output.push(chunk));
          child.stderr.on('data', (chunk: Buffer) => output.push(chunk));
          child.on('error', (error) => output.push(Buffer.from(`${error.message}\n`)));
          child.on('close', (status) => {
            console.log(`\n=== ${step.name} ===`);
            process.stdout.write(Buffer.concat(output));
            resolve({ step, passed: finishStep(step, status, started) });
          });
        }),
    ),
  );
  return results.filter((result) => !result.passed).map((result) => result.step.name);
}

function runAlone(step: Step): string[] {
  const started = Date.now();
  console.log(`\n=== ${step.name} ===`);
  const result = spawnSync(step.command, step.args, { stdio: 'inherit', env: ENV });
  return finishStep(step, result.status, started) ? [] : [step.name];
}

let failedStep: string | undefined;
for (const stage of stages) {
  const failures = stage.length === 1 ? runAlone(stage[0]!) : await runTogether(stage);
  if (failures.length) {
    failedStep = failures.join(', ');
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
