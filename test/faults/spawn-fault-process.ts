/**
 * The child process both fault runners start, ./spawn-step.ts (run-step.mts) and ./jobs.ts (run-job.mts): the
 * script under tsx with the react-server conditions, its payload as JSON in argv, killed by SIGKILL at
 * `crashAt` if given (CHARGEPORT_CRASH_AT). Reports how it ended, its `{"ok"…}` answer line if it printed one,
 * and its stderr.
 */
import { spawn } from 'node:child_process';
import type { CrashPoint } from '@/lib/crash-points';

interface FaultProcessEnd {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** The first stdout line starting with `{"ok"`: the step's or job's answer. */
  line: string | undefined;
  stderr: string;
}

export function spawnFaultProcess(script: string, payload: unknown, crashAt?: CrashPoint): Promise<FaultProcessEnd> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--conditions=react-server', '--import', 'tsx', script, JSON.stringify(payload)], {
      env: { ...process.env, CHARGEPORT_CRASH_AT: crashAt ?? '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      const line = stdout.split('\n').find((l) => l.startsWith('{"ok"'));
      resolve({ code, signal, line, stderr });
    });
  });
}
