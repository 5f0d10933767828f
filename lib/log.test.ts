import { createPublicClient, http } from 'viem';
import { polygon } from 'viem/chains';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { resetEnvCache } from './env';
import { log, logger, redactConsole, scrubText } from './log';

const ALCHEMY_KEY = 'aLcHeMyKeY0123456789abcdefXYZ';
const RPC_URL = `https://polygon-mainnet.g.alchemy.com/v2/${ALCHEMY_KEY}`;

/** Everything written to stdout and stderr while `run` runs. */
async function captureOutput(run: () => unknown): Promise<string> {
  const lines: string[] = [];
  const spies = [process.stdout, process.stderr].map((stream) =>
    vi.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    }),
  );
  try {
    await run();
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
  return lines.join('');
}

/** The error viem throws when a call to the RPC URL fails: its message and stack quote the URL. */
async function viemErrorFor(url: string): Promise<Error> {
  const client = createPublicClient({
    chain: polygon,
    transport: http(url, { retryCount: 0, fetchFn: async () => Promise.reject(new TypeError('fetch failed')) }),
  });
  const error = (await client.getBlockNumber().then(
    () => new Error('the call was expected to fail'),
    (e: unknown) => e,
  )) as Error;
  expect(String(error)).toContain(ALCHEMY_KEY); // the premise: viem puts the key in the error
  return error;
}

beforeEach(() => {
  process.env.RPC_URL_POLYGON = RPC_URL;
  process.env.LOG_LEVEL = 'debug';
  resetEnvCache();
});
afterEach(() => {
  delete process.env.RPC_URL_POLYGON;
  process.env.LOG_LEVEL = 'error';
  resetEnvCache();
});

describe('log redaction', () => {
  it('logs a viem error carrying a configured RPC URL with its key without the key', async () => {
    const error = await viemErrorFor(RPC_URL);
    const output = await captureOutput(() => log.error('chain call failed', { chain: 'POLYGON', error, detail: error.message }));
    expect(output).not.toContain(ALCHEMY_KEY);
    // Still useful: which provider failed, and how.
    expect(output).toContain('polygon-mainnet.g.alchemy.com/[redacted]');
    expect(output).toContain('HTTP request failed');
  });

  it("with several RPC URLs (failover), each one's key is taken out", async () => {
    const INFURA_KEY = 'iNfUrAkEy9876543210fedcbaQRS';
    process.env.RPC_URL_POLYGON = `${RPC_URL},https://polygon-mainnet.infura.io/v3/${INFURA_KEY}`;
    resetEnvCache();
    const output = await captureOutput(() =>
      log.error('both failed', { first: RPC_URL, second: `https://polygon-mainnet.infura.io/v3/${INFURA_KEY}` }),
    );
    expect(output).not.toContain(ALCHEMY_KEY);
    expect(output).not.toContain(INFURA_KEY);
    expect(output).toContain('polygon-mainnet.infura.io/[redacted]');
  });

  it('also scrubs an error whose cause carries the URL, and the message itself', async () => {
    const error = new Error('sweep failed', { cause: await viemErrorFor(RPC_URL) });
    const output = await captureOutput(() => log.warn(`retrying ${RPC_URL}`, { error }));
    expect(output).not.toContain(ALCHEMY_KEY);
    expect(JSON.parse(output).error.cause.message).toContain('[redacted]');
  });

  it('scrubs error-like objects from another realm too (they fail instanceof Error)', async () => {
    const foreign = {
      name: 'HttpRequestError',
      message: `HTTP request failed.\n\nURL: ${RPC_URL}`,
      stack: `HttpRequestError: at ${RPC_URL}`,
    };
    const output = await captureOutput(() => log.error('chain call failed', { error: foreign }));
    expect(output).not.toContain(ALCHEMY_KEY);
    expect(JSON.parse(output).error).toMatchObject({ name: 'HttpRequestError', message: expect.stringContaining('[redacted]') });
  });

  it('takes credentials out of any URL, secret query parameters and Chargeport API keys', () => {
    expect(scrubText('connect postgres://app:s3cr3t@db.internal:5432/cp failed')).toBe(
      'connect postgres://[redacted]@db.internal:5432/cp failed',
    );
    expect(scrubText('GET https://api.example/v1?apikey=abc123&x=1')).toBe('GET https://api.example/v1?apikey=[redacted]&x=1');
    expect(scrubText('key cp_live_AbCdEf0123456789AbCdEf0123456789 refused')).toBe('key cp_[redacted] refused');
  });

  it('redacts fields named like secrets whatever their type, keeping ids and counts', async () => {
    const output = await captureOutput(() =>
      log.info('event', {
        pin: 123456,
        code: '834201',
        password: 'hunter2',
        authorization: 'Bearer abc',
        nested: { apiKey: 'cp_x', webhookSecret: 'whsec_x', sessionToken: 't' },
        keyId: 'key_123',
        codeCount: 3,
        chargeId: 'ch_1',
      }),
    );
    const line = JSON.parse(output);
    expect(line).toMatchObject({
      pin: '[redacted]',
      code: '[redacted]',
      password: '[redacted]',
      authorization: '[redacted]',
      nested: { apiKey: '[redacted]', webhookSecret: '[redacted]', sessionToken: '[redacted]' },
      keyId: 'key_123',
      codeCount: 3,
      chargeId: 'ch_1',
    });
    for (const secret of ['123456', '834201', 'hunter2', 'Bearer abc', 'whsec_x']) expect(output).not.toContain(secret);
  });

  it('scrubs console output too (Next.js prints errors that escape a request there)', async () => {
    const error = await viemErrorFor(RPC_URL);
    const written: string[] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => void written.push(args.map(String).join(' '));
    try {
      redactConsole();
      console.error(error);
      console.error(`failed: ${RPC_URL}`);
    } finally {
      console.error = original;
      (globalThis as { __chargeportConsoleRedacted?: boolean }).__chargeportConsoleRedacted = false;
    }
    expect(written).toHaveLength(2);
    expect(written.join('\n')).not.toContain(ALCHEMY_KEY);
    expect(written.join('\n')).toContain('polygon-mainnet.g.alchemy.com');
  });
});

describe('the logger is pino', () => {
  it("redacts in pino's own hooks: a child logger's fields and message, and the bindings it carries", async () => {
    const output = await captureOutput(() =>
      logger
        .child({ requestId: 'req_1', sessionToken: 'child-binding-token' })
        .warn({ apiKey: 'cp_live_AbCdEf0123456789', upstream: RPC_URL, chargeId: 'ch_1' }, `retrying ${RPC_URL}`),
    );
    expect(output).not.toContain(ALCHEMY_KEY);
    expect(output).not.toContain('cp_live_AbCdEf0123456789');
    const line = JSON.parse(output) as Record<string, unknown>;
    expect(line).toMatchObject({
      level: 'warn',
      requestId: 'req_1',
      apiKey: '[redacted]',
      chargeId: 'ch_1',
      upstream: 'https://polygon-mainnet.g.alchemy.com/[redacted]',
      msg: 'retrying https://polygon-mainnet.g.alchemy.com/[redacted]',
    });
    expect(output).not.toContain('child-binding-token');
    const grandchild = await captureOutput(() => logger.child({ requestId: 'req_2' }).child({ pin: 123456 }).error('failed'));
    expect(JSON.parse(grandchild)).toMatchObject({ requestId: 'req_2', pin: '[redacted]', msg: 'failed' });
  });

  it('writes one line per call: info and debug on stdout, warn and error on stderr, none under LOG_LEVEL', async () => {
    const written: { stream: string; line: Record<string, unknown> }[] = [];
    const spies = (['stdout', 'stderr'] as const).map((name) =>
      vi.spyOn(process[name], 'write').mockImplementation((chunk: string | Uint8Array) => {
        written.push({ stream: name, line: JSON.parse(String(chunk)) as Record<string, unknown> });
        return true;
      }),
    );
    try {
      log.debug('d', { n: 1n });
      log.info('i');
      log.warn('w');
      log.error('e');
      process.env.LOG_LEVEL = 'warn';
      resetEnvCache();
      log.info('left out');
      log.warn('kept');
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
    expect(written.map(({ stream, line }) => [stream, line.level, line.msg])).toEqual([
      ['stdout', 'debug', 'd'],
      ['stdout', 'info', 'i'],
      ['stderr', 'warn', 'w'],
      ['stderr', 'error', 'e'],
      ['stderr', 'warn', 'kept'],
    ]);
    expect(written[0]!.line).toMatchObject({ n: '1', time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
  });
});
