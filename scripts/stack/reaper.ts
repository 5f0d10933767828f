/**
 * The launcher's last resort. It stops its children itself on SIGINT, SIGTERM and SIGHUP, but nothing runs in a
 * process killed with SIGKILL (or by tsx's own escalation, or a crash), and anvil and PostgreSQL do not notice
 * that their parent is gone. So the launcher leaves a tiny detached shell behind that waits for it to die and
 * then stops what it started: SIGTERM, and SIGKILL 5 s later. On a normal stop the launcher dismisses it last.
 */
import { spawn } from 'node:child_process';

const SCRIPT = `
launcher=$1; shift
while kill -0 "$launcher" 2>/dev/null; do sleep 1; done
kill -s TERM -- "$@" 2>/dev/null
sleep 5
kill -s KILL -- "$@" 2>/dev/null
exit 0`;

export interface Reaper {
  /** The launcher stopped everything itself: the reaper exits without touching anything. */
  dismiss(): void;
}

export function startReaper(options: { watchPid: number; pids: number[]; processGroups: number[] }): Reaper {
  const targets = [...options.pids.map(String), ...options.processGroups.map((group) => `-${group}`)];
  if (process.platform === 'win32' || targets.length === 0) return { dismiss: () => {} };
  const child = spawn('sh', ['-c', SCRIPT, 'chargeport-reaper', String(options.watchPid), ...targets], {
    detached: true,
    stdio: 'ignore',
  });
  child.unref();
  return {
    dismiss: () => {
      try {
        child.kill('SIGKILL');
      } catch {
        // already gone
      }
    },
  };
}
