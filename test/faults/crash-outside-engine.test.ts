/**
 * kill -9 at crash points outside the transaction engine (part of `npm run test:faults`; the engine's own
 * points are faults.test.ts's). The request or job runs in a process of its own (test/faults/run-job.mts)
 * that dies by SIGKILL at a named point of lib/crash-points.ts; then a fresh process runs the same job, as
 * the restarted worker (or the provider's redelivery) would, and the effects are counted:
 *  - a provider webhook being applied (receipt and order update written, not committed): the redelivery
 *    applies it once, the next is a duplicate;
 *  - a charge being paid from a delivered on-ramp order (transfer, order link and events written, not
 *    committed): the next pass pays it once;
 *  - a watcher's poll that made a charge succeed has committed, nothing has relayed its webhook; then the
 *    relay dies mid-transaction: the next relay and the delivery worker deliver `charge.succeeded` to the
 *    merchant's endpoint exactly once.
 * The audit of money-world.ts runs after each (amounts on chain, charges against the chain, rows, ledger).
 */
import { and, eq, isNull, sql } from 'drizzle-orm';
import { createWalletClient, http, parseEther, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import gameItemsArtifact from '@/lib/chains/artifacts/GameItems.json' with { type: 'json' };
import { createFulfilmentRule } from '@/lib/contracts/create-rule';
import { registerContract } from '@/lib/contracts/register-contract';
import { startDueFulfilments } from '@/lib/contracts/start-fulfilments';
import { fundLocalWallet, localMinterAccount } from '@/scripts/stack/local-chain';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { POST as createEndpointRoute } from '@/app/api/webhook-endpoints/route';
import { getDb } from '@/lib/db/client';
import {
  onrampOrderEvents,
  onrampOrders,
  onrampWebhookReceipts,
  outboundTransfers,
  webhookDeliveries,
  webhookEvents,
  charges,
  fulfilments,
} from '@/lib/db/schema';
import { newId } from '@/lib/ids';
import { signSandboxWebhook } from '@/lib/onramp/providers/sandbox';
import { applyProviderWebhook } from '@/lib/onramp/orders/apply-provider-webhook';
import { payChargesFromDeliveredOrders } from '@/lib/onramp/pay-charge-from-order';
import { startWebhookQueue, stopWebhookQueue } from '@/lib/webhooks/queue';
import { relayWebhookEvents } from '@/lib/webhooks/relay';
import type { CrashPoint } from '@/lib/crash-points';
import { callRoute, createTestCharge } from '@/test/fixtures';
import { startWebhookReceiver, waitFor, type WebhookReceiver } from '@/test/webhook-receiver';
import { TEST_SECRETS } from '@/test/test-secrets';
import { runJob, type Job } from './jobs';
import { pause, PIN } from './harness';
import {
  CHAIN,
  JEWEL,
  jobsOnce,
  mine,
  newCharge,
  newConsumer,
  payFromOutside,
  scenario,
  sendFrom,
  startWorld,
  stopWorld,
  w,
  type Scenario,
} from './money-world';

const KILL = 'kill -9 outside the engine';
let receiver: WebhookReceiver;

beforeAll(async () => {
  await startWorld('crashes');
  receiver = await startWebhookReceiver();
  const res = await callRoute(createEndpointRoute, { apiKey: w().merchant.testKey, body: { url: receiver.url } });
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  // The restarted worker's delivery side; relays happen only in the job processes below (by hand).
  await startWebhookQueue({ relayOnNotify: false, relayIntervalMs: 3_600_000, pollingIntervalSeconds: 0.5 });
}, 120_000);

afterAll(async () => {
  await stopWebhookQueue();
  await receiver?.close();
  await stopWorld('faults-crash');
});

/** Runs `job` in its own process, which must die by SIGKILL at `point`. */
async function killedAt(s: Scenario, job: Job, point: CrashPoint): Promise<void> {
  const run = await runJob(job, point);
  expect(run.killed, `${job.op} did not die at ${point}: ${JSON.stringify(run.output)} ${run.stderr}`).toBe(true);
  s.note(`kill at ${point}`);
}

/** Runs `job` in a fresh process to its end (the restarted worker, the provider's redelivery); returns its result. */
async function fresh(job: Job): Promise<unknown> {
  const run = await runJob(job);
  expect(run.output?.ok, `${job.op}: ${JSON.stringify(run.output)} ${run.stderr}`).toBe(true);
  return run.output!.result;
}

/** Runs `job` again in this process (a live instance): children cost seconds each on a loaded machine. */
async function again(job: Job): Promise<unknown> {
  switch (job.op) {
    case 'provider-webhook':
      return applyProviderWebhook(job.providerId, { rawBody: job.rawBody, headers: job.headers });
    case 'pay-orders':
      return payChargesFromDeliveredOrders();
    case 'relay':
      return relayWebhookEvents();
    case 'fulfil':
      return startDueFulfilments();
    default:
      throw new Error(`again: ${job.op} runs in a child only`);
  }
}

const countOf = async (query: Promise<{ n: number }[]>) => (await query)[0]!.n;

/**
 * A card purchase below the provider's minimum for `chargeId` (ADR 0019), placed and started: the buyer's
 * order of `amount` JEWEL into their own wallet, `pending` at the provider (MoonPay, played by the sandbox).
 */
async function pendingOrder(chargeId: string, buyer: { userId: string; address: Address }, amount: string): Promise<string> {
  const id = newId('onrampOrder');
  await getDb()
    .insert(onrampOrders)
    .values({
      id,
      userId: buyer.userId,
      chargeId,
      purpose: 'charge_minimum',
      providerId: 'moonpay',
      chain: CHAIN,
      tokenSymbol: JEWEL.symbol,
      tokenAddress: JEWEL.address,
      tokenDecimals: JEWEL.decimals,
      walletAddress: buyer.address,
      country: 'US',
      paymentMethod: 'card',
      fiatCurrency: 'USD',
      requestedBaseUnits: parseEther(amount),
      cryptoBaseUnits: parseEther(amount),
      quote: {},
      fiatTotal: '20',
      status: 'pending',
      expiresAt: new Date(Date.now() + 3_600_000),
    });
  return id;
}

/** The provider's `COMPLETED` webhook for an order, signed as the sandbox signs. */
function completedWebhook(orderId: string, wallet: Address, amount: string, txHash: string): Job {
  const rawBody = JSON.stringify({
    id: `evt_${newId('onrampOrderEvent')}`,
    type: 'order.updated',
    createdAt: new Date().toISOString(),
    data: { orderId: `ses_${orderId}`, partnerOrderId: orderId, status: 'COMPLETED', cryptoAmount: amount, walletAddress: wallet, txHash },
  });
  const signature = signSandboxWebhook(TEST_SECRETS.SANDBOX_PROVIDER_SECRET, rawBody, Math.floor(Date.now() / 1000));
  return { op: 'provider-webhook', providerId: 'sandbox', rawBody, headers: { 'sandbox-signature': signature } };
}

describe(`${KILL}: on-ramp orders`, () => {
  scenario(
    KILL,
    'the worker dies applying a provider webhook (receipt and order written, not committed); the redelivery applies it once',
    async (s) => {
      const buyer = await newConsumer('0');
      const charge = await newCharge('3');
      const orderId = await pendingOrder(charge.chargeId, buyer, '5');
      const delivery = await sendFrom(w().funder, buyer.address, parseEther('5')); // the provider delivers
      const webhook = completedWebhook(orderId, buyer.address, '5', delivery);
      await killedAt(s, webhook, 'onramp.webhook_applying');
      const [before] = await getDb().select().from(onrampOrders).where(eq(onrampOrders.id, orderId));
      expect(before).toMatchObject({ status: 'pending', deliveryTxHash: null });
      // The provider got no answer and delivers the same body again: applied now, then a duplicate.
      expect(await fresh(webhook)).toMatchObject({ status: 200, outcome: 'applied', orderId });
      expect(await again(webhook)).toMatchObject({ status: 200, outcome: 'duplicate' });
      s.expectRows('the order and its history', async () => {
        const [order] = await getDb().select().from(onrampOrders).where(eq(onrampOrders.id, orderId));
        const events = await countOf(
          getDb()
            .select({ n: sql<number>`count(*)::int` })
            .from(onrampOrderEvents)
            .where(and(eq(onrampOrderEvents.orderId, orderId), eq(onrampOrderEvents.source, 'provider_webhook'))),
        );
        const receipts = await countOf(
          getDb()
            .select({ n: sql<number>`count(*)::int` })
            .from(onrampWebhookReceipts)
            .where(eq(onrampWebhookReceipts.orderId, orderId)),
        );
        return order!.status === 'completed' && order!.deliveryTxHash === delivery && events === 1 && receipts === 1
          ? null
          : `order ${order!.status} (${order!.deliveryTxHash}), ${events} provider events, ${receipts} receipts`;
      });
      // The charge is then paid from the delivery, once (the next scenario kills that step).
      s.expectCharge(charge.chargeId, 'succeeded');
      await settleOrders();
    },
  );

  scenario(
    KILL,
    'the worker dies paying a charge from a delivered order (transfer and order link written, not committed); the next pass pays once',
    async (s) => {
      const buyer = await newConsumer('0');
      const charge = await newCharge('4');
      const orderId = await pendingOrder(charge.chargeId, buyer, '6');
      const delivery = await sendFrom(w().funder, buyer.address, parseEther('6'));
      expect(await again(completedWebhook(orderId, buyer.address, '6', delivery))).toMatchObject({ outcome: 'applied' });
      await mine(w().depth);
      await jobsOnce(); // the wallet indexer confirms the delivery: the order is ready to pay its charge
      await killedAt(s, { op: 'pay-orders' }, 'onramp.order_payment_recording');
      const [killed] = await getDb().select().from(onrampOrders).where(eq(onrampOrders.id, orderId));
      expect(killed!.chargeTransferId).toBeNull();
      expect(await getDb().select().from(outboundTransfers).where(eq(outboundTransfers.chargeId, charge.chargeId))).toEqual([]);
      expect(await fresh({ op: 'pay-orders' })).toBe(1);
      expect(await again({ op: 'pay-orders' })).toBe(0);
      s.expectCharge(charge.chargeId, 'succeeded');
      s.expectRows('the order paid its charge once', async () => {
        const [order] = await getDb().select().from(onrampOrders).where(eq(onrampOrders.id, orderId));
        const transfers = await getDb()
          .select({ id: outboundTransfers.id })
          .from(outboundTransfers)
          .where(and(eq(outboundTransfers.chargeId, charge.chargeId), eq(outboundTransfers.purpose, 'balance_payment')));
        return transfers.length === 1 && order!.chargeTransferId === transfers[0]!.id && order!.chargePaymentError === null
          ? null
          : `${transfers.length} balance payments, the order links ${order!.chargeTransferId} (${order!.chargePaymentError ?? ''})`;
      });
    },
  );
});

/** The order-payment job and the chain jobs until the scenario's transfers are through. */
async function settleOrders(): Promise<void> {
  for (let i = 0; i < 3; i++) {
    await mine(w().depth);
    await jobsOnce();
    await again({ op: 'pay-orders' });
  }
}

describe(`${KILL}: a charge's webhook`, () => {
  scenario(
    KILL,
    'the watcher dies after settling a charge, the relay dies mid-transaction; a fresh relay and worker deliver charge.succeeded once',
    async (s) => {
      const charge = await newCharge('2');
      s.expectCharge(charge.chargeId, 'succeeded');
      await payFromOutside(charge.deposit, '2');
      await mine(w().depth + 1);
      // Between settling the charge and relaying its webhook: the poll committed, the process died.
      await killedAt(s, { op: 'poll', chain: CHAIN }, 'charge.settled');
      const [settled] = await getDb().select().from(charges).where(eq(charges.id, charge.chargeId));
      expect(settled!.status).toBe('succeeded');
      const succeeded = () =>
        getDb()
          .select()
          .from(webhookEvents)
          .where(and(eq(webhookEvents.chargeId, charge.chargeId), eq(webhookEvents.type, 'charge.succeeded')));
      const [event] = await succeeded();
      expect(event!.relayedAt).toBeNull();
      // The relay dies with the deliveries written and the event stamped, before commit.
      await killedAt(s, { op: 'relay' }, 'webhook.relaying');
      expect(
        await getDb()
          .select()
          .from(webhookEvents)
          .where(and(eq(webhookEvents.id, event!.id), isNull(webhookEvents.relayedAt))),
      ).toHaveLength(1);
      expect(await getDb().select().from(webhookDeliveries).where(eq(webhookDeliveries.eventId, event!.id))).toEqual([]);

      // Restarted: a fresh process relays (everything due: charge.created, processing, succeeded); this
      // process's delivery worker sends them in order.
      expect(await fresh({ op: 'relay' })).toBeGreaterThan(0);
      while (((await again({ op: 'relay' })) as number) > 0);
      const forEvent = () => receiver.received.filter((r) => r.headers['webhook-id'] === event!.id);
      await waitFor(() => forEvent().length > 0, { timeoutMs: 30_000, what: 'charge.succeeded at the endpoint' });
      // A second relay finds nothing; a little later the endpoint still has it once.
      expect(await again({ op: 'relay' })).toBe(0);
      await pause(1_500);
      s.expectRows('charge.succeeded delivered', async () => {
        const deliveries = await getDb().select().from(webhookDeliveries).where(eq(webhookDeliveries.eventId, event!.id));
        return forEvent().length === 1 && deliveries.length === 1 && deliveries[0]!.status === 'succeeded'
          ? null
          : `${forEvent().length} requests, ${deliveries.length} deliveries (${deliveries.map((d) => d.status).join(', ')})`;
      });
      expect(await succeeded()).toHaveLength(1);
    },
  );
});

/** A GameItems ERC-1155 (lib/chains/artifacts) at a fresh address on the node; the merchant wallet may mint. */
async function gameItems(): Promise<Address> {
  const address = privateKeyToAccount(generatePrivateKey()).address;
  await w().chain.request({ method: 'anvil_setCode' as never, params: [address, gameItemsArtifact.deployedBytecode] as never });
  await fundLocalWallet({ chain: CHAIN, url: w().node.url, address: localMinterAccount.address });
  const minter = createWalletClient({ account: localMinterAccount, transport: http(w().node.url) });
  const call = async (functionName: string, args: unknown[]) =>
    w().chain.waitForTransactionReceipt({
      hash: await minter.writeContract({ address, abi: gameItemsArtifact.abi, functionName, args, chain: null } as never),
    });
  await call('initialize', ['Demo items', 'ITEM', 'https://game.example/items/{id}.json', localMinterAccount.address]);
  const role = (await w().chain.readContract({ address, abi: gameItemsArtifact.abi, functionName: 'MINTER_ROLE' })) as Hex;
  await call('grantRole', [role, w().merchantWallet]);
  return address;
}

const itemBalance = async (contract: Address, holder: Address, id: bigint) =>
  (await w().chain.readContract({
    address: contract,
    abi: gameItemsArtifact.abi,
    functionName: 'balanceOf',
    args: [holder, id],
  })) as bigint;

describe(`${KILL}: fulfilment`, () => {
  scenario(
    KILL,
    'the worker dies recording a fulfilment (the mint recorded, the row submitted, not committed); the next run mints once',
    async (s) => {
      const items = await gameItems();
      const owner = { userId: w().ownerId, merchantId: w().merchant.id, mode: 'test' as const, stepUp: { pin: PIN } };
      const contract = await registerContract({ ...owner, values: { chain: CHAIN, address: items } });
      await createFulfilmentRule({
        ...owner,
        values: {
          contractId: contract.id,
          function: 'mint(address,uint256,uint256)',
          bindings: [{ source: 'recipient' }, { source: 'metadata', key: 'itemId' }, { source: 'quantity' }],
        },
      });
      const { chargeId, deposit } = await createTestCharge({
        apiKey: w().merchant.testKey,
        body: {
          chargeData: {
            symbol: 'JEWEL',
            chain: 'DFK',
            tokenAddress: JEWEL.address,
            items: [{ name: 'Potion', amount: '0.5', quantity: 3 }],
            metadata: { itemId: '7' },
          },
          isTest: true,
        },
      });
      s.expectCharge(chargeId, 'succeeded');
      const payer = await payFromOutside(deposit.address as Address, '1.5');
      await settleWatcher(chargeId);
      const [armed] = await getDb().select().from(fulfilments).where(eq(fulfilments.chargeId, chargeId));
      expect(armed).toMatchObject({ status: 'pending', transferId: null });

      await killedAt(s, { op: 'fulfil' }, 'fulfilment.recording');
      const [after] = await getDb().select().from(fulfilments).where(eq(fulfilments.id, armed!.id));
      expect(after).toMatchObject({ status: 'pending', transferId: null });
      expect(await fresh({ op: 'fulfil' })).toBe(1);
      expect(await again({ op: 'fulfil' })).toBe(0);
      s.expectRows('minted once', async () => {
        const [row] = await getDb().select().from(fulfilments).where(eq(fulfilments.id, armed!.id));
        const calls = await getDb()
          .select({ id: outboundTransfers.id })
          .from(outboundTransfers)
          .where(and(eq(outboundTransfers.chargeId, chargeId), eq(outboundTransfers.purpose, 'fulfilment')));
        const held = await itemBalance(items, payer, 7n);
        return row!.status === 'succeeded' && calls.length === 1 && held === 3n
          ? null
          : `fulfilment ${row!.status}, ${calls.length} mint calls, the payer holds ${held} items (expected 3)`;
      });
    },
  );
});

/** The watcher until the charge succeeded (no fulfilment job runs here). */
async function settleWatcher(chargeId: string): Promise<void> {
  for (let i = 0; i < 10; i++) {
    await mine(w().depth);
    await jobsOnce();
    const [row] = await getDb().select({ status: charges.status }).from(charges).where(eq(charges.id, chargeId));
    if (row!.status === 'succeeded') return;
  }
  throw new Error(`charge ${chargeId} did not succeed`);
}
