import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from './fixtures';
import { Webhook } from 'standardwebhooks';
import { signUpAndSignIn } from './account-helpers';
import { merchantApi, TEST_POL } from './api';
import { sendNativeFromOutside } from './chain';
import { uniqueEmail } from './outbox';

interface Received {
  headers: Record<string, string>;
  body: string;
}

/** The merchant's webhook receiver: a plain HTTP server on 127.0.0.1 that records what it is sent and answers 200. */
async function startReceiver(): Promise<{ url: string; received: Received[]; close: () => Promise<void> }> {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const headers = Object.fromEntries(
        Object.entries(req.headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : (value ?? '')]),
      );
      received.push({ headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200, { 'content-type': 'text/plain' }).end('thanks');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks/chargeport`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const ofType = (received: Received[], type: string) => received.filter((r) => (JSON.parse(r.body) as { type: string }).type === type);

test('Webhooks tab: an endpoint added in the dashboard receives a correctly signed charge.succeeded for a paid test charge, shown in its delivery log', async ({
  page,
  request,
}) => {
  test.setTimeout(120_000);
  const receiver = await startReceiver();
  try {
    await signUpAndSignIn(page, uniqueEmail('hooks-owner'));
    await page.goto('/account/profile');
    await page.getByLabel('Business name').fill('Hookshot Games');
    await page.getByRole('button', { name: 'Become a merchant' }).click();
    await expect(page.getByTestId('new-test-key')).toBeVisible();

    // The merchant creates a (test) key for its server.
    await page.goto('/dashboard/settings/api-keys');
    await page.getByLabel('Name').fill('Game server');
    await page.getByRole('button', { name: 'Create key' }).click();
    const apiKey = (await page.getByTestId('new-key').textContent())!.trim();
    expect(apiKey).toMatch(/^cp_test_/);

    // …adds an endpoint (every event type by default) pointed at its receiver…
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await expect(page.getByRole('heading', { name: 'Webhooks (test)' })).toBeVisible();
    await page.getByLabel('Endpoint URL').fill(receiver.url);
    await expect(page.getByLabel('Every event type (also types added later)')).toBeChecked();
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await expect(page).toHaveURL(/\/dashboard\/settings\/webhooks\/we_/);
    const endpointPage = page.url();
    await expect(page.getByTestId('endpoint-url')).toHaveText(receiver.url);
    await expect(page.getByTestId('endpoint-status')).toHaveText('active');

    // …and reveals its signing secret.
    await page.getByRole('button', { name: 'Reveal secret' }).click();
    const secret = (await page.getByTestId('webhook-secret').textContent())!.trim();
    expect(secret).toMatch(/^whsec_/);

    // A test charge (POL on Polygon Amoy, the local chain) paid from an outside wallet to its deposit address.
    const charge = await merchantApi(request, apiKey).createCharge({ chargeData: { ...TEST_POL, amount: '0.25' }, isTest: true });
    await page.goto(charge.paymentUrl);
    const deposit = (await page.getByTestId('deposit-address').textContent())!.trim();
    await sendNativeFromOutside('POLYGON_AMOY', deposit, '0.25');
    await expect(page.getByTestId('live-status')).toHaveAttribute('data-status', 'succeeded', { timeout: 30_000 });

    // The receiver gets charge.succeeded, signed per Standard Webhooks with the revealed secret.
    await expect.poll(() => ofType(receiver.received, 'charge.succeeded').length, { timeout: 30_000 }).toBe(1);
    const [delivered] = ofType(receiver.received, 'charge.succeeded');
    const event = new Webhook(secret).verify(delivered!.body, delivered!.headers) as {
      id: string;
      type: string;
      mode: string;
      data: { charge: { id: string; status: string } };
    };
    expect(event).toMatchObject({ type: 'charge.succeeded', mode: 'test', data: { charge: { id: charge.chargeId, status: 'succeeded' } } });
    expect(delivered!.headers['webhook-id']).toBe(event.id);
    expect(() => new Webhook(`whsec_${Buffer.alloc(32, 7).toString('base64')}`).verify(delivered!.body, delivered!.headers)).toThrow();

    // The delivery shows in the endpoint's log: attempt 1, succeeded, 200, the receiver's answer.
    await page.goto(endpointPage);
    const succeededRow = page.locator('[data-testid="delivery-row"][data-event-type="charge.succeeded"]');
    await expect
      .poll(
        async () => {
          await page.reload();
          return succeededRow.getAttribute('data-status', { timeout: 2_000 }).catch(() => null);
        },
        { timeout: 30_000 },
      )
      .toBe('succeeded');
    await expect(succeededRow.getByTestId('delivery-response-status')).toHaveText('200');
    await expect(succeededRow).toContainText(event.id);
    await expect(succeededRow).toContainText('thanks');

    // "Send test event" goes through the same queue and signing.
    await page.getByRole('button', { name: 'Send test event' }).click();
    await expect(page.getByText(/Test event wevt_\w+ queued/)).toBeVisible();
    await expect.poll(() => ofType(receiver.received, 'webhook.test').length, { timeout: 30_000 }).toBe(1);
    const [test] = ofType(receiver.received, 'webhook.test');
    expect(new Webhook(secret).verify(test!.body, test!.headers)).toMatchObject({ type: 'webhook.test', mode: 'test' });

    // Resend: a new attempt of the same event (same webhook-id), logged as attempt 2.
    await succeededRow.getByRole('button', { name: 'Resend' }).click();
    await expect(page.getByText('Queued as attempt 2.')).toBeVisible();
    await expect.poll(() => ofType(receiver.received, 'charge.succeeded').length, { timeout: 30_000 }).toBe(2);
    expect(ofType(receiver.received, 'charge.succeeded')[1]!.headers['webhook-id']).toBe(event.id);
  } finally {
    await receiver.close();
  }
});
