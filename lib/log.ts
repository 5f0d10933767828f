/**
 * Structured logs, one JSON object per line. Fields named like secrets are redacted before writing,
 * so a key, code or PIN passed by mistake never reaches the log.
 */
import { env } from './env';

const LEVELS = { debug: 10, info: 20, warn: 30, error: 40 } as const;
type Level = keyof typeof LEVELS;
const SECRET_FIELD = /(key|secret|token|password|pin|code|authorization|cookie)/i;

function redact(value: unknown, depth = 0): unknown {
  if (value instanceof Error) return { name: value.name, message: value.message, stack: value.stack };
  if (depth > 4 || value === null || typeof value !== 'object') return typeof value === 'bigint' ? value.toString() : value;
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, SECRET_FIELD.test(k) && typeof v === 'string' ? '[redacted]' : redact(v, depth + 1)]),
  );
}

function write(level: Level, message: string, fields?: Record<string, unknown>): void {
  let threshold: Level = 'info';
  try {
    threshold = env().LOG_LEVEL;
  } catch {
    // configuration errors are reported elsewhere; keep logging
  }
  if (LEVELS[level] < LEVELS[threshold]) return;
  const line = JSON.stringify({ level, time: new Date().toISOString(), msg: message, ...(redact(fields ?? {}) as object) });
  (level === 'error' || level === 'warn' ? process.stderr : process.stdout).write(`${line}\n`);
}

export const log = {
  debug: (message: string, fields?: Record<string, unknown>) => write('debug', message, fields),
  info: (message: string, fields?: Record<string, unknown>) => write('info', message, fields),
  warn: (message: string, fields?: Record<string, unknown>) => write('warn', message, fields),
  error: (message: string, fields?: Record<string, unknown>) => write('error', message, fields),
};
