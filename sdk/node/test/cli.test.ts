/**
 * The `chargeport` command against the real route handlers and PostgreSQL: `listen` forwards the
 * key's events to a local HTTP handler, signed with the secret it prints (verified with the SDK's own
 * constructEvent); `trigger` makes charge.created / charge.canceled / charge.succeeded happen for real
 * in test mode; live keys, missing flags and unknown events are refused with usage help.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newMerchant, type TestMerchant } from '@/test/fixtures';
import { runCli, type CliIo } from '../src/cli';
import type { WebhookEvent } from '../src/index';
import { constructEvent } from '../src/webhooks';
import { routeFetch } from './route-fetch';

let merchant: TestMerchant;
let receiver: Server;
let receiverUrl: string;
const received: { headers: Record<string, string | string[] | undefined>; body: string }[] = [];

beforeAll(async () => {
  merchant = await newMerchant({ verified: true });
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks`;
});

afterAll(() => new Promise((resolve) => receiver.close(resolve)));

function io(overrides: Partial<CliIo> = {}): CliIo & { lines: string[]; errors: string[] } {
  const lines: string[] = [];
  const errors: string[] = [];
  return {
    lines,
    errors,
    out: (line) => lines.push(line),
    err: (line) => errors.push(line),
    env: { CHARGEPORT_API_KEY: merchant.testKey, CHARGEPORT_BASE_URL: 'http://localhost:3999' },
    fetch: routeFetch().fetch,
    ...overrides,
  };
}

const until = async (condition: () => boolean, what: string) => {
  for (let i = 0; i < 100 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 100));
  if (!condition()) throw new Error(`timed out waiting for ${what}`);
};

describe('chargeport listen / trigger', () => {
  it('forwards triggered events to the local URL, signed with the secret it prints', async () => {
    const controller = new AbortController();
    const listener = io({ signal: controller.signal });
    const listening = runCli(['listen', '--forward-to', receiverUrl, '--events', 'charge.created,charge.canceled'], listener);
    await until(() => listener.lines.some((line) => line.includes('signing secret')), 'the printed secret');
    const secret = /whsec_\S+/.exec(listener.lines.join('\n'))![0];
    // The stream starts "from now on" once its request is answered; give it a moment to open.
    await new Promise((resolve) => setTimeout(resolve, 500));

    const triggering = io();
    expect([await runCli(['trigger', 'charge.canceled'], triggering), ...triggering.errors]).toEqual([0]);
    const chargeId = /ch_\w+/.exec(triggering.lines.join('\n'))![0];
    await until(() => received.filter((r) => r.body.includes(chargeId)).length >= 2, 'two forwarded events');
    controller.abort();
    expect(await listening).toBe(0);

    const events: WebhookEvent[] = received.filter((r) => r.body.includes(chargeId)).map((r) => constructEvent(r.body, r.headers, secret));
    expect(events.map((event) => event.type)).toEqual(['charge.created', 'charge.canceled']);
    expect(received.find((r) => r.body.includes(chargeId))!.headers['webhook-id']).toBe(events[0]!.id);
    expect(() => constructEvent(received[0]!.body, received[0]!.headers, `whsec_${Buffer.alloc(24, 1).toString('base64')}`)).toThrow(
      /No webhook-signature matches/,
    );
    expect(listener.lines.some((line) => line.includes(`charge.canceled ${events[1]!.id}`) && line.includes('[200]'))).toBe(true);
  });

  it('trigger charge.succeeded pays the test charge on its test network', async () => {
    const cli = io();
    expect([await runCli(['trigger', 'charge.succeeded', '--amount', '0.15'], cli), ...cli.errors]).toEqual([0]);
    expect(cli.lines.join('\n')).toMatch(/Paid it on POLYGON_AMOY \(0x[0-9a-f]{64}\)/);
  });

  it('refuses live keys, a missing --forward-to and unknown events, with usage help', async () => {
    const live = io({ env: { CHARGEPORT_API_KEY: merchant.liveKey! } });
    expect(await runCli(['trigger', 'charge.created'], live)).toBe(2);
    expect(live.errors[0]).toContain('Use a test key');

    const noUrl = io();
    expect(await runCli(['listen'], noUrl)).toBe(2);
    expect(noUrl.errors[0]).toContain('--forward-to');

    const unknown = io();
    expect(await runCli(['trigger', 'charge.exploded'], unknown)).toBe(2);
    expect(unknown.errors[0]).toContain('charge.created, charge.succeeded, charge.canceled');

    // --chain is checked before anything is created (the SDK's chain type is the API's chain names).
    const misspelt = io();
    expect(await runCli(['trigger', 'charge.created', '--chain', 'ETHERUEM'], misspelt)).toBe(2);
    expect(misspelt.errors[0]).toContain('Unknown --chain ETHERUEM: one of POLYGON, POLYGON_AMOY');

    const apiError = io({ env: { CHARGEPORT_API_KEY: 'cp_test_not_a_key' } });
    expect(await runCli(['trigger', 'charge.created'], apiError)).toBe(1);
    expect(apiError.errors[0]).toMatch(/HTTP 401/);
  });
});
