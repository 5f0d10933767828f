/**
 * The one logger: pino, one JSON object per line (`level`, `time`, `msg` and the fields), info and debug on
 * stdout, warn and error on stderr, at LOG_LEVEL. `log.info/warn/error/debug(message, fields)` is the facade the
 * code calls (the request log too: lib/http/record-requests.ts); `logger` is the pino instance behind it.
 * Secrets are taken out in pino's own hooks (formatters.log for the fields, hooks.logMethod for the message),
 * so whatever goes through `logger` — a child logger too — is redacted the same way:
 *
 *  - fields named like secrets (key, secret, token, password, pin, code, authorization, cookie, seed,
 *    pepper, signature) have their value replaced, whatever its type, so a key, code or PIN passed by
 *    mistake never reaches the log; ids and counts of such things (`keyId`, `codeCount`) stay;
 *  - every string (the message, values, error messages and stacks, their causes) is scrubbed of
 *    credentials in URLs (`https://user:pass@…`), of the path and query of the configured RPC URLs
 *    (Alchemy, Infura and QuickNode put the key there, and viem errors quote the URL they called),
 *    of secret-named query parameters (`?apikey=…`), and of Chargeport API keys.
 *
 * `redactConsole()` applies the same scrubbing to console output, where Next.js prints errors that
 * escape a request.
 */
import { inspect } from 'node:util';
import pino from 'pino';
import { CHAIN_NAMES } from './chains/registry';
import { env, rpcEnvName, type Env } from './env';

const REDACTED = '[redacted]';
const SECRET_FIELD = /(key|secret|token|password|passwd|pin|code|otp|authorization|cookie|seed|pepper|mnemonic|signature|credential)/i;
/** Names that carry an identifier, count or status of a secret-named thing, not the secret. */
const PUBLIC_FIELD = /(Id|Ids|_id|Count|Prefix|Status|At)$/;
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@]+@/gi;
const SECRET_QUERY_PARAM = /([?&][^=&\s#]*(?:key|secret|token|password|signature|auth)[^=&\s#]*=)[^&\s#"']+/gi;
const CHARGEPORT_API_KEY = /\bcp_(?:pub_)?(?:test|live)_[0-9A-Za-z]{8,}/g;

function isSecretField(name: string): boolean {
  return SECRET_FIELD.test(name) && !PUBLIC_FIELD.test(name);
}

let secretUrlsFor: Env | undefined;
let secretUrls: { text: string; replacement: string }[] = [];

/** The configured RPC URLs whose path or query may hold a key, longest first, with what replaces them. */
function configuredSecretUrls(): { text: string; replacement: string }[] {
  let config: Env;
  try {
    config = env();
  } catch {
    return secretUrls; // configuration errors are reported elsewhere; keep logging
  }
  if (config === secretUrlsFor) return secretUrls;
  const found: { text: string; replacement: string }[] = [];
  for (const chain of CHAIN_NAMES) {
    for (const configured of config[rpcEnvName(chain)]?.split(',') ?? []) {
      try {
        const url = new URL(configured);
        if ((url.pathname === '/' || url.pathname === '') && !url.search) continue;
        const replacement = `${url.protocol}//${url.host}/${REDACTED}`;
        found.push({ text: configured, replacement }, { text: url.href, replacement });
        // Quoted elsewhere without the origin (a path in a message), or with a trailing slash dropped.
        if (url.pathname.length > 1) found.push({ text: `${url.pathname}${url.search}`.replace(/\/$/, ''), replacement: `/${REDACTED}` });
      } catch {
        // not a URL: env validation reports it
      }
    }
  }
  secretUrls = found.filter((entry) => entry.text.length >= 4).sort((a, b) => b.text.length - a.text.length);
  secretUrlsFor = config;
  return secretUrls;
}

/** A string with credentials taken out of URLs, configured RPC URLs cut to their origin, API keys removed. */
export function scrubText(text: string): string {
  let out = text;
  for (const { text: secret, replacement } of configuredSecretUrls()) out = out.split(secret).join(replacement);
  return out
    .replace(URL_USERINFO, `$1${REDACTED}@`)
    .replace(SECRET_QUERY_PARAM, `$1${REDACTED}`)
    .replace(CHARGEPORT_API_KEY, `cp_${REDACTED}`);
}

/** Errors from another realm (Next.js bundles, pg-boss) fail `instanceof Error`; their message and stack are not enumerable. */
function isErrorLike(value: unknown): value is Error {
  return (
    value instanceof Error ||
    (typeof value === 'object' &&
      value !== null &&
      typeof (value as Error).message === 'string' &&
      typeof (value as Error).stack === 'string')
  );
}

function redact(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return scrubText(value);
  if (typeof value === 'bigint') return value.toString();
  if (isErrorLike(value)) {
    const cause = (value as { cause?: unknown }).cause;
    return {
      name: value.name,
      message: scrubText(value.message),
      stack: value.stack === undefined ? undefined : scrubText(value.stack),
      ...(cause !== undefined && depth < 4 ? { cause: redact(cause, depth + 1) } : {}),
    };
  }
  if (depth > 4 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [
      k,
      isSecretField(k) && v !== null && v !== undefined && typeof v !== 'boolean' && typeof v !== 'object'
        ? REDACTED
        : redact(v, depth + 1),
    ]),
  );
}

/** LOG_LEVEL, read at each line (tests and the launcher change it); info while the configuration is invalid. */
function threshold(): Env['LOG_LEVEL'] {
  try {
    return env().LOG_LEVEL;
  } catch {
    return 'info'; // configuration errors are reported elsewhere; keep logging
  }
}

// Through process.stdout/stderr at each write (not a captured fd), so tests can read what is written.
const toStdout = { write: (line: string) => process.stdout.write(line) };
const toStderr = { write: (line: string) => process.stderr.write(line) };

export const logger = pino(
  {
    level: 'info', // set from LOG_LEVEL at each write (below)
    base: null,
    messageKey: 'msg',
    timestamp: () => `,"time":"${new Date().toISOString()}"`,
    formatters: {
      level: (label) => ({ level: label }),
      // Every field, before it is serialized: secret-named values replaced, strings and errors scrubbed.
      log: (fields) => redact(fields) as Record<string, unknown>,
    },
    hooks: {
      logMethod(args, method) {
        method.apply(this, args.map((arg: unknown) => (typeof arg === 'string' ? scrubText(arg) : arg)) as Parameters<typeof method>);
      },
    },
  },
  // dedupe: each line goes to the one stream of the highest level it reaches (warn and error: stderr only).
  pino.multistream(
    [
      { level: 'debug', stream: toStdout },
      { level: 'warn', stream: toStderr },
    ],
    { dedupe: true },
  ),
);

// A child logger's bindings skip formatters.log (pino formats them once, when the child is made): redacted here.
const pinoChild = logger.child;
logger.child = function child(this: typeof logger, bindings, options) {
  return pinoChild.call(this, redact(bindings) as typeof bindings, options);
} as typeof logger.child;

function write(level: Env['LOG_LEVEL'], message: string, fields?: Record<string, unknown>): void {
  const wanted = threshold();
  if (logger.level !== wanted) logger.level = wanted;
  logger[level](fields ?? {}, message);
}

export const log = {
  debug: (message: string, fields?: Record<string, unknown>) => write('debug', message, fields),
  info: (message: string, fields?: Record<string, unknown>) => write('info', message, fields),
  warn: (message: string, fields?: Record<string, unknown>) => write('warn', message, fields),
  error: (message: string, fields?: Record<string, unknown>) => write('error', message, fields),
};

const consoleState = globalThis as unknown as { __chargeportConsoleRedacted?: boolean };

/**
 * Scrubs what goes through console.error / warn / log / info (Next.js prints unhandled request
 * errors there, viem's URL included). Errors and objects are formatted first, then scrubbed.
 */
export function redactConsole(): void {
  if (consoleState.__chargeportConsoleRedacted) return;
  consoleState.__chargeportConsoleRedacted = true;
  for (const method of ['error', 'warn', 'log', 'info'] as const) {
    const original = console[method].bind(console);
    console[method] = (...args: unknown[]) =>
      original(
        ...args.map((arg) =>
          typeof arg === 'string' ? scrubText(arg) : arg !== null && typeof arg === 'object' ? scrubText(inspect(arg)) : arg,
        ),
      );
  }
}
