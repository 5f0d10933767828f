#!/usr/bin/env node
// The `chargeport` command (package.json "bin"): see cli.ts.
import { runCli } from './cli.ts';

const controller = new AbortController();
process.once('SIGINT', () => controller.abort());
process.exitCode = await runCli(process.argv.slice(2), {
  out: (line) => console.log(line),
  err: (line) => console.error(line),
  env: process.env,
  signal: controller.signal,
});
