/** Runs one step in a process of its own (test/faults/run-step.mts), killed by SIGKILL at `crashAt` if given. */
import { spawn } from 'node:child_process';
import type { CrashPoint } from '@/lib/crash-points';
import type { Step } from './steps';

interface StepRun {
  killed: boolean;
  output: { ok: boolean; result?: unknown; code?: string | null; message?: string } | null;
}

export function runStep(step: Step, crashAt?: CrashPoint): Promise<StepRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--conditions=react-server', '--import', 'tsx', 'test/faults/run-step.mts', JSON.stringify(step)],
      {
        env: { ...process.env, CHARGEPORT_CRASH_AT: crashAt ?? '' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      const line = stdout.split('\n').find((l) => l.startsWith('{"ok"'));
      if (!line && signal !== 'SIGKILL') reject(new Error(`step ${step.op} exited ${code}: ${stderr.slice(-2000)}`));
      else resolve({ killed: signal === 'SIGKILL', output: line ? JSON.parse(line) : null });
    });
  });
}
