import { readFileSync } from 'node:fs';
import { expect, test, type APIRequestContext, type Page } from './fixtures';
import { parseCsv } from '@/test/parse-csv';
import { signUpAndSignIn } from './account-helpers';
import { withE2eDatabase } from './admin';
import { merchantApi, TEST_POL } from './api';
import { sendNativeFromOutside } from './chain';
import { uniqueEmail } from './outbox';

/** Wide tables scroll inside their own box: the page itself never scrolls sideways (375 px phone included). */
async function expectNoPageOverflow(page: Page): Promise<void> {
  const overflow = await page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const wide = [...document.querySelectorAll('body *')]
      .filter((el) => el.getBoundingClientRect().right > width + 1 && !el.closest('.overflow-x-auto, .sr-only'))
      .map((el) => `${el.tagName.toLowerCase()}.${el.className}`.slice(0, 120));
    return { by: document.documentElement.scrollWidth - width, wide: wide.slice(0, 5) };
  });
  expect(overflow).toEqual({ by: 0, wide: [] });
}

async function createTestCharge(
  request: APIRequestContext,
  testKey: string,
  chargeData: { amount?: string; items?: { name: string; amount: string; quantity: number }[]; metadata?: Record<string, string> },
): Promise<string> {
  return (await merchantApi(request, testKey).createCharge({ chargeData: { ...TEST_POL, ...chargeData }, isTest: true })).chargeId;
}

test('Charges tab and Overview: test charges listed, filtered, paid on the local chain, exported as CSV; live mode shows none of them', async ({
  page,
  request,
}) => {
  await signUpAndSignIn(page, uniqueEmail('charges-owner'));
  await page.goto('/account/profile');
  await page.getByLabel('Business name').fill('Ledgerline Games');
  await page.getByRole('button', { name: 'Become a merchant' }).click();
  const testKey = (await page.getByTestId('new-test-key').textContent())!.trim();

  // Three test charges (test charges run on the test network, POLYGON_AMOY, in POL): one to pay, one open, one canceled.
  const paid = await createTestCharge(request, testKey, { amount: '0.25', metadata: { orderId: 'e2e-paid' } });
  const open = await createTestCharge(request, testKey, {
    items: [{ name: 'Sword', amount: '0.1', quantity: 3 }],
    metadata: { orderId: 'e2e-open', note: '=1+1, "quoted"' },
  });
  const canceled = await createTestCharge(request, testKey, { amount: '1', metadata: { orderId: 'e2e-canceled' } });
  const api = merchantApi(request, testKey);
  await api.cancelCharge(canceled);

  // Pay the first one from an outside wallet on the local Amoy node; the watcher settles it.
  const [deposit] = await withE2eDatabase(
    (sql) => sql<{ address: string }[]>`select address from deposit_addresses where charge_id = ${paid}`,
  );
  const txHash = await sendNativeFromOutside('POLYGON_AMOY', deposit!.address, '0.25');
  await expect
    .poll(async () => (await api.getCharge(paid)).status, {
      timeout: 30_000,
    })
    .toBe('succeeded');

  // Overview: the succeeded count, the volume in POL, the chart and the recent charges.
  await page.goto('/dashboard');
  await expect(page.getByTestId('merchant-name')).toHaveText('Ledgerline Games');
  await expect(page.getByTestId('succeeded-count')).toHaveText('1');
  await expect(page.getByTestId('token-volume')).toHaveText(/0\.25 POL on Polygon Amoy \(test\) · 1 charge/);
  await expect(page.getByRole('table', { name: 'Succeeded charges per day' })).toBeAttached();
  await expect(page.getByTestId('recent-charges').getByTestId('charge-row')).toHaveCount(3);
  await expectNoPageOverflow(page);

  // Charges tab: all three, then filtered by status and searched by metadata.
  await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Charges' }).click();
  await expect(page.getByRole('heading', { name: 'Charges (test)' })).toBeVisible();
  const rows = page.getByTestId('charges').getByTestId('charge-row');
  await expect(rows).toHaveCount(3);
  await expectNoPageOverflow(page);
  await page.getByLabel('Status').selectOption('succeeded');
  await page.getByRole('button', { name: 'Apply filters' }).click();
  await expect(page).toHaveURL(/status=succeeded/);
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toHaveAttribute('data-charge-id', paid);
  await expect(rows.first()).toContainText('0.25 POL');

  // The export carries the list's filters.
  const filteredDownload = page.waitForEvent('download');
  await page.getByRole('link', { name: 'Export CSV' }).click();
  const download = await filteredDownload;
  expect(download.suggestedFilename()).toMatch(/^charges-test-\d{4}-\d{2}-\d{2}\.csv$/);
  const filtered = parseCsv(readFileSync(await download.path(), 'utf8'));
  expect(filtered[0]).toEqual(['id', 'created_at', 'status', 'chain', 'token', 'amount', 'mode', 'metadata', 'succeeded_at', 'tx_hashes']);
  expect(filtered.slice(1)).toEqual([
    [
      paid,
      expect.any(String),
      'succeeded',
      'POLYGON_AMOY',
      'POL',
      '0.25',
      'test',
      '{"orderId":"e2e-paid"}',
      expect.any(String),
      expect.any(String),
    ],
  ]);
  // The payment's hash comes first (oldest first). The sweep's gas top-up into this native-coin deposit
  // address can follow it: the chain watcher currently records that as a transfer too (lib/payments).
  expect(filtered[1]![9]!.split(' ')[0]).toBe(txHash);

  await page.getByLabel('Status').selectOption('canceled');
  await page.getByRole('button', { name: 'Apply filters' }).click();
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toHaveAttribute('data-charge-id', canceled);

  await page.getByRole('link', { name: 'Clear' }).click();
  await expect(page).toHaveURL(/\/dashboard\/charges$/);
  await expect(rows).toHaveCount(3);
  await expect(page.getByLabel('Status')).toHaveValue('');
  await page.getByLabel('Search').fill('orderId:e2e-open');
  await page.getByRole('button', { name: 'Apply filters' }).click();
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toHaveAttribute('data-charge-id', open);

  // The whole export (same session): every charge, exact amounts, the metadata as JSON.
  const all = parseCsv(await (await page.request.get('/dashboard/charges/export')).text());
  expect(
    all
      .slice(1)
      .map((row) => [row[0], row[2], row[5]])
      .sort(),
  ).toEqual(
    [
      [paid, 'succeeded', '0.25'],
      [open, 'pending', '0.3'],
      [canceled, 'canceled', '1'],
    ].sort(),
  );
  expect(JSON.parse(all.find((row) => row[0] === open)![7]!)).toEqual({ orderId: 'e2e-open', note: '=1+1, "quoted"' });

  // The charge page: total, the payment with its transaction link, the timeline and webhook events.
  await page.getByRole('link', { name: 'Clear' }).click();
  await expect(rows).toHaveCount(3);
  await page.getByRole('link', { name: paid }).click();
  await expect(page.getByTestId('charge-id')).toHaveText(paid);
  await expect(page.getByTestId('charge-total')).toContainText('0.25 POL');
  const paymentTx = page.getByTestId('payment-tx').filter({ hasText: txHash });
  await expect(paymentTx).toHaveText(txHash);
  await expect(paymentTx).toHaveAttribute('href', `https://amoy.polygonscan.com/tx/${txHash}`);
  await expect(page.getByTestId('payment-row').filter({ has: paymentTx })).toContainText('0.25 POL');
  const timeline = page.getByTestId('timeline-entry');
  await expect(timeline.first()).toHaveAttribute('data-type', 'charge.pending');
  await expect(page.locator('[data-testid="timeline-entry"][data-type="charge.processing"]')).toHaveCount(1);
  await expect(page.locator('[data-testid="timeline-entry"][data-type="charge.succeeded"]')).toHaveCount(1);
  await expect(page.locator('[data-testid="webhook-delivery"][data-event-type="charge.succeeded"]')).toHaveCount(1);
  await expectNoPageOverflow(page);

  // Refund part of it to the wallet that paid (owner, with the PIN); the engine sends it and it succeeds.
  const refunds = page.getByTestId('refunds');
  await expect(refunds).toContainText('Refundable now: 0.25 POL');
  await refunds.getByLabel('Amount (POL)').fill('0.1');
  await refunds.getByLabel('Your PIN').fill('482915');
  await refunds.getByRole('button', { name: 'Refund' }).click();
  await expect(refunds.getByText(/^Refund rf_\w+ of 0\.1 POL to 0x70997970C51812dc3A010C7d01b50e0d17dc79C8/)).toBeVisible();
  await expect(refunds.getByTestId('refund-row')).toHaveCount(1);
  await expect
    .poll(
      async () => {
        await page.reload();
        return refunds.getByTestId('refund-row').first().textContent();
      },
      { timeout: 30_000 },
    )
    .toContain('Refunded');
  await expect(refunds).toContainText('Refundable now: 0.15 POL');

  // Another mode: none of the test data.
  await page.goto('/dashboard/charges');
  await page.getByRole('button', { name: 'Live' }).click();
  await expect(page.getByRole('button', { name: 'Live' })).toHaveAttribute('aria-pressed', 'true');
  await expect(page.getByRole('heading', { name: 'Charges (live)' })).toBeVisible();
  await expect(page.getByTestId('no-charges')).toBeVisible();
  await page.goto(`/dashboard/charges/${paid}`);
  await expect(page.getByRole('heading', { name: 'Not found' })).toBeVisible();
  await expect(page.getByTestId('charge-id')).toHaveCount(0);
  await page.goto('/dashboard');
  await expect(page.getByTestId('succeeded-count')).toHaveText('0');
  const liveExport = parseCsv(await (await page.request.get('/dashboard/charges/export')).text());
  expect(liveExport).toHaveLength(1);
});
