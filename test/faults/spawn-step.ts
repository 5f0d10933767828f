/** Runs one step in a process of its own (test/faults/run-step.mts), killed by SIGKILL at `crashAt` if given. */
import type { CrashPoint } from '@/lib/crash-points';
import { spawnFaultProcess } from './spawn-fault-process';
import type { Step } from './steps';

interface StepRun {
  killed: boolean;
  output: { ok: boolean; result?: unknown; code?: string | null; message?: string } | null;
}

export async function runStep(step: Step, crashAt?: CrashPoint): Promise<StepRun> {
  const { code, signal, line, stderr } = await spawnFaultProcess('test/faults/run-step.mts', step, crashAt);
  if (!line && signal !== 'SIGKILL') throw new Error(`step ${step.op} exited ${code}: ${stderr.slice(-2000)}`);
  return { killed: signal === 'SIGKILL', output: line ? JSON.parse(line) : null };
}
