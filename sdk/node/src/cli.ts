/**
 * `chargeport` — webhooks on a merchant's laptop, as `stripe listen` does:
 *
 *   chargeport listen --api-key cp_test_… --forward-to http://localhost:4000/webhooks
 *     streams the key's events (GET /api/events/stream) and POSTs each to the local URL, signed the
 *     Standard Webhooks way with a local secret it prints (or --secret / CHARGEPORT_LISTEN_SECRET, so
 *     the handler's configuration survives restarts). The webhook-id is the event id, as in production.
 *
 *   chargeport trigger charge.succeeded --api-key cp_test_…
 *     makes the event happen for real in test mode: creates a test charge and pays it on its test
 *     network through the test helpers (charge.succeeded), or cancels it (charge.canceled).
 *
 * The key may come from CHARGEPORT_API_KEY, the server from --base-url / CHARGEPORT_BASE_URL.
 */
import { randomBytes } from 'node:crypto';
import { Chain, type ChainName } from './chain.ts';
import { Chargeport, type FetchLike } from './client.ts';
import { ChargeportError } from './errors.ts';
import { signWebhook, type WebhookEvent } from './webhooks.ts';

export interface CliIo {
  out: (line: string) => void;
  err: (line: string) => void;
  env: Record<string, string | undefined>;
  /** Ends `listen` (Ctrl-C in the terminal). */
  signal?: AbortSignal;
  /** The API's fetch (tests answer from the route handlers); forwarding always uses the global fetch. */
  fetch?: FetchLike;
  /** Where the local handler is reached; default the global fetch. */
  forwardFetch?: FetchLike;
}

const USAGE = `Usage:
  chargeport listen  --forward-to <url> [--api-key cp_test_…] [--base-url <url>] [--events a,b] [--secret whsec_…]
  chargeport trigger <charge.created|charge.succeeded|charge.canceled> [--api-key cp_test_…] [--base-url <url>]
                     [--chain POLYGON] [--symbol POL] [--token 0x…] [--amount 0.1]
The key may also come from CHARGEPORT_API_KEY and the server from CHARGEPORT_BASE_URL.`;

const TRIGGERS = ['charge.created', 'charge.succeeded', 'charge.canceled'] as const;
const NATIVE_TOKEN = '0x0000000000000000000000000000000000000000';

class UsageError extends Error {}

function parseFlags(args: string[]): { positional: string[]; flags: Map<string, string> } {
  const positional: string[] = [];
  const flags = new Map<string, string>();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (!arg.startsWith('--')) {
      positional.push(arg);
      continue;
    }
    const [name, inline] = arg.slice(2).split('=', 2) as [string, string | undefined];
    const value = inline ?? args[++i];
    if (value === undefined || value.startsWith('--')) throw new UsageError(`--${name} needs a value.`);
    flags.set(name, value);
  }
  return { positional, flags };
}

/** Runs one command; resolves to the process exit code. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  try {
    const { positional, flags } = parseFlags(rest);
    if (command === 'listen') return await listen(flags, io);
    if (command === 'trigger') return await trigger(positional[0], flags, io);
    io.out(USAGE);
    return command === undefined || command === 'help' || command === '--help' ? 0 : 2;
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`${error.message}\n\n${USAGE}`);
      return 2;
    }
    if (error instanceof ChargeportError) {
      io.err(`Chargeport answered ${error.status ? `HTTP ${error.status} ` : ''}${error.code}: ${error.message}`);
      return 1;
    }
    throw error;
  }
}

function client(flags: Map<string, string>, io: CliIo): Chargeport {
  const apiKey = flags.get('api-key') ?? io.env.CHARGEPORT_API_KEY;
  if (!apiKey) throw new UsageError('Give a secret key with --api-key or CHARGEPORT_API_KEY.');
  if (!apiKey.startsWith('cp_test_'))
    throw new UsageError('Use a test key (cp_test_…): local forwarding and triggers are for test mode only.');
  const baseUrl = flags.get('base-url') ?? io.env.CHARGEPORT_BASE_URL ?? 'http://localhost:3000';
  return new Chargeport({ apiKey, baseUrl, ...(io.fetch ? { fetch: io.fetch } : {}) });
}

async function listen(flags: Map<string, string>, io: CliIo): Promise<number> {
  const forwardTo = flags.get('forward-to');
  if (!forwardTo || !/^https?:\/\//.test(forwardTo)) throw new UsageError('Give the local URL with --forward-to http://localhost:…');
  const chargeport = client(flags, io);
  const secret = flags.get('secret') ?? io.env.CHARGEPORT_LISTEN_SECRET ?? `whsec_${randomBytes(24).toString('base64')}`;
  const types = flags
    .get('events')
    ?.split(',')
    .map((type) => type.trim()) as WebhookEvent['type'][] | undefined;
  const forward = io.forwardFetch ?? ((url: string, init: RequestInit) => fetch(url, init));
  io.out(`Ready. Forwarding ${types?.join(', ') ?? 'all events'} to ${forwardTo}`);
  io.out(`Your local webhook signing secret is ${secret}`);

  for await (const event of chargeport.events.stream({ ...(types ? { types } : {}), ...(io.signal ? { signal: io.signal } : {}) })) {
    const body = JSON.stringify(event);
    let outcome: string;
    try {
      const response = await forward(forwardTo, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...signWebhook(body, secret, { id: event.id }) },
        body,
        signal: AbortSignal.timeout(15_000),
      });
      outcome = `[${response.status}]`;
    } catch (error) {
      outcome = `[failed: ${error instanceof Error ? error.message : String(error)}]`;
    }
    io.out(`${new Date().toISOString()}  --> ${event.type} ${event.id}  <-- ${outcome} POST ${forwardTo}`);
  }
  return 0;
}

async function trigger(eventType: string | undefined, flags: Map<string, string>, io: CliIo): Promise<number> {
  if (!eventType || !(TRIGGERS as readonly string[]).includes(eventType))
    throw new UsageError(`Name the event to trigger: ${TRIGGERS.join(', ')}.`);
  const chain = flags.get('chain') ?? Chain.POLYGON;
  if (!(Object.values(Chain) as string[]).includes(chain))
    throw new UsageError(`Unknown --chain ${chain}: one of ${Object.values(Chain).join(', ')}.`);
  const chargeport = client(flags, io);
  const { chargeId } = await chargeport.charges.create({
    chargeData: {
      chain: chain as ChainName,
      symbol: flags.get('symbol') ?? 'POL',
      tokenAddress: flags.get('token') ?? NATIVE_TOKEN,
      amount: flags.get('amount') ?? '0.1',
      metadata: { triggeredBy: 'chargeport trigger' },
    },
    isTest: true,
  });
  io.out(`Created test charge ${chargeId}.`);
  if (eventType === 'charge.succeeded') {
    const payment = await chargeport.testHelpers.payCharge(chargeId);
    io.out(`Paid it on ${payment.chain} (${payment.txHash}); charge.succeeded follows once the watcher confirms it.`);
  } else if (eventType === 'charge.canceled') {
    await chargeport.charges.cancel(chargeId);
    io.out('Canceled it.');
  }
  return 0;
}
