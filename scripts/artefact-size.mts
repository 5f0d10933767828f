/**
 * `npm run size` (after `npm run build`): the standalone app's size, its 15 largest packages and, read from the
 * Dockerfile, which stage copies what. Exits 1 when the standalone folder holds the anvil binary or is over the
 * aim (scripts/lib/artefact-size.mts); docs/operations.md, "Artefact size", keeps the figures.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { dockerStages, measureStandalone, mebibytes, STANDALONE_AIM_BYTES } from './lib/artefact-size.mts';

const root = path.resolve(import.meta.dirname, '..');
if (!existsSync(path.join(root, '.next/standalone/server.js'))) {
  console.error('No .next/standalone/server.js: run `npm run build` first.');
  process.exit(1);
}

const report = measureStandalone(root);
console.log(`.next/standalone (the server, without the copies \`npm start\` adds): ${mebibytes(report.serverBytes)}`);
console.log(`  aim: under ${mebibytes(STANDALONE_AIM_BYTES)}`);
console.log(`.next/static + public (copied beside it by the app stage): ${mebibytes(report.assetBytes)}`);
console.log('\nLargest packages in .next/standalone:');
for (const pkg of report.largest) console.log(`  ${mebibytes(pkg.bytes).padStart(10)}  ${pkg.name}`);

console.log('\nDockerfile stages (what each copies):');
for (const stage of dockerStages(readFileSync(path.join(root, 'Dockerfile'), 'utf8'))) {
  console.log(`  ${stage.name} (FROM ${stage.from})`);
  for (const copy of stage.copies) console.log(`    COPY ${copy}`);
  if (stage.copies.length === 0) console.log('    (copies nothing)');
}

const failures: string[] = [];
if (report.forbidden.length > 0) failures.push(`the anvil binary is in the standalone app: ${report.forbidden.join(', ')}`);
if (report.serverBytes > STANDALONE_AIM_BYTES) {
  failures.push(`the standalone app is ${mebibytes(report.serverBytes)}, over the aim of ${mebibytes(STANDALONE_AIM_BYTES)}`);
}
for (const failure of failures) console.error(`\nFAIL: ${failure}`);
process.exit(failures.length > 0 ? 1 : 0);
