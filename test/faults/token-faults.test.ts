/**
 * The fault-injection suite, ERC-20 part (issue 29.4): USDC on a private POLYGON node (the registry's address,
 * planted as the launcher plants it; confirmation depth 30, the chain's own) reached through the RPC fault
 * proxy. Balance payments, sweeps, refunds and withdrawals in the token, each spend from a wallet without
 * native coin preceded by the gas tank's top-up, while the endpoint errs, loses sends, answers 429/503 or
 * hangs past the client's timeout. Audited by token balances at fresh recipients, the gas tank's balance
 * against its records, and the ledger's reconciliation (test/faults/token-world.ts).
 */
import { eq, gt } from 'drizzle-orm';
import { parseEther } from 'viem';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { getDb } from '@/lib/db/client';
import { outboundTransfers } from '@/lib/db/schema';
import { withdrawFromMerchantWallet } from '@/lib/merchants/withdraw';
import { payFromBalance } from '@/lib/payments/pay-from-balance';
import { sweepCharge } from '@/lib/payments/sweep-charges';
import { createRefund, newRefundRequestId } from '@/lib/refunds/create-refund';
import { newSendId } from '@/lib/wallets/preview-send';
import { sendFromWallet } from '@/lib/wallets/send-from-wallet';
import { reconcileDueTransfers } from '@/lib/jobs/transfer-outcome-hooks';
import {
  ATTEMPTS_UNDER_RPC_ERRORS,
  SCENARIO_TIMEOUT,
  PIN,
  canceledSince,
  pause,
  retried,
  stranger,
  withdrawAndRefundWhileSendsFail,
} from './harness';
import {
  jobsOnce,
  mine,
  newCharge,
  newConsumer,
  paidCharge,
  refundCtx,
  automine,
  scenario,
  sendNative,
  startTokenWorld,
  stopTokenWorld,
  transfersOf,
  units,
  w,
  withdrawal,
} from './token-world';

const ERC20 = 'ERC-20 (USDC) money paths';
const TIMEOUTS = 'RPC timeouts, hangs, 429 on send (ERC-20)';

beforeAll(async () => {
  await startTokenWorld({
    chain: 'POLYGON',
    symbol: 'USDC',
    dbPrefix: 'faults_token',
    localChains: 'POLYGON_AMOY',
    merchantFunding: '500',
  });
}, SCENARIO_TIMEOUT);

afterAll(() => stopTokenWorld('faults-token'));

describe('ERC-20 payments, sweeps, refunds and withdrawals under RPC faults', () => {
  scenario(
    ERC20,
    '25 % of RPC calls fail: a USDC balance payment, a withdrawal and a refund from the deposit (each retried)',
    async (s) => {
      const consumer = await newConsumer('30');
      const charge = await newCharge('5');
      const paid = await paidCharge('4', { sweeps: false });
      const destination = stranger();
      const refundKey = newRefundRequestId();
      await s.expectArrival('withdrawal', destination, units('1.5'));
      await s.expectArrival('refund', paid.payer, units('4'));
      await s.expectArrival('merchant wallet (two sweeps less the withdrawal)', w().merchantWallet, units('5') - units('1.5'));
      s.expectCharge(charge.chargeId, 'succeeded');
      s.expectCharge(paid.chargeId, 'succeeded');

      s.inject({ errorRate: 0.25 });
      s.requireFault('error');
      const attempts = ATTEMPTS_UNDER_RPC_ERRORS;
      await retried(() => payFromBalance({ userId: consumer.userId, chargeId: charge.chargeId, pin: PIN }), attempts);
      await retried(() => withdrawFromMerchantWallet(withdrawal(destination, '1.5')), attempts);
      await retried(() => createRefund({ ctx: refundCtx(), chargeId: paid.chargeId, body: {}, idempotencyKey: refundKey }), attempts);
      for (let i = 0; i < 6; i++) {
        await mine(10);
        await jobsOnce();
      }
      // Each spend of a wallet without POL went after the tank's top-up.
      expect(await transfersOf(charge.chargeId, 'gas_topup')).not.toHaveLength(0);
    },
  );

  scenario(ERC20, 'a sweep whose gas top-up is lost and whose sweep send is answered with an error after the node took it', async (s) => {
    const paid = await paidCharge('6', { sweeps: false });
    await s.expectArrival('sweep to the merchant wallet', w().merchantWallet, units('6'));
    s.expectCharge(paid.chargeId, 'succeeded');
    s.inject({ loseSends: 1, failAfterSends: 1 });
    s.requireFault('lost_send', 'fail_after_send');
    for (let i = 0; i < 8; i++) {
      await sweepCharge(paid.chargeId).catch(() => null);
      await mine(1);
      await pause(1_100); // the lost top-up is stuck after TRANSFER_STUCK_AFTER_SECONDS: sent again
      await jobsOnce({ sweeps: false });
    }
    expect(await transfersOf(paid.chargeId, 'sweep')).toHaveLength(1);
    expect(await transfersOf(paid.chargeId, 'gas_topup')).toHaveLength(1);
  });

  scenario(
    ERC20,
    'receipts answer "not found" 70 % of the time while a USDC refund from the merchant wallet and a withdrawal settle',
    async (s) => {
      const paid = await paidCharge('3'); // swept: the refund comes from the merchant wallet
      const destination = stranger();
      await s.expectArrival('refund', paid.payer, units('3'));
      await s.expectArrival('withdrawal', destination, units('2'));
      s.expectCharge(paid.chargeId, 'succeeded');
      s.inject({ missingReceiptRate: 0.7 });
      s.requireFault('missing_receipt');
      await retried(() => createRefund({ ctx: refundCtx(), chargeId: paid.chargeId, body: {}, idempotencyKey: newRefundRequestId() }));
      await retried(() => withdrawFromMerchantWallet(withdrawal(destination, '2')));
      for (let i = 0; i < 6; i++) {
        await mine(10);
        await jobsOnce();
      }
      expect(await canceledSince(s.started)).toEqual([]);
    },
  );
});

/** A consumer holding USDC and its own POL for gas (sent on the record), and a wallet send of `amount` to `to`. */
async function walletSend(amount: string, to: string) {
  const consumer = await newConsumer('10');
  await sendNative(w().funder, consumer.address, parseEther('1'));
  await jobsOnce({ sweeps: false }); // the POL arrives on the record
  const input = {
    userId: consumer.userId,
    sendId: newSendId(),
    pin: PIN,
    chain: w().chain,
    tokenAddress: w().token.address,
    toAddress: to,
    amount,
  };
  return { input, address: consumer.address };
}

const CANCEL = 'The cancel path (definite refusals)';

describe('the cancel path under faults', () => {
  scenario(
    CANCEL,
    'a USDC wallet send refused three times amid 429s: its nonce is filled by a cancel, nothing moves; sent again, it lands once',
    async (s) => {
      const destination = stranger();
      const { input: first } = await walletSend('2', destination);
      await s.expectArrival('wallet send (the second)', destination, units('2'), 0n);
      s.inject({ refuseSends: 3, transportFaults: { count: 2, kinds: ['http_429', 'http_503'], methods: ['eth_sendRawTransaction'] } });
      s.requireFault('refused_send', 'transport_http_429');
      const sent = await sendFromWallet(first);
      for (let i = 0; i < 8; i++) {
        await reconcileDueTransfers({ ignoreSchedule: true });
        await mine(10);
      }
      s.heal();
      await reconcileDueTransfers({ ignoreSchedule: true });
      const [row] = await getDb().select().from(outboundTransfers).where(eq(outboundTransfers.id, sent.transferId));
      expect(row).toMatchObject({ status: 'failed', error: expect.stringMatching(/canceled/) });
      expect((await canceledSince(s.started)).map((c) => c.transferId)).toEqual([sent.transferId]);
      s.expectFailed(sent.transferId);
      s.note('canceled', 1);
      // The user sees it failed and sends again (a new form): this one lands.
      await sendFromWallet({ ...first, sendId: newSendId() });
    },
  );

  scenario(
    CANCEL,
    'a cancel racing the original a node already took (its answer lost), both in the mempool: exactly one of them is mined',
    async (s) => {
      const destination = stranger();
      const { input, address } = await walletSend('3', destination);
      await automine(false);
      s.inject({ failAfterSends: 1, refuseSends: 3 });
      s.requireFault('fail_after_send', 'refused_send');
      await sendFromWallet(input).catch(() => null); // the answer is lost: the user does not know
      for (let i = 0; i < 5; i++) await reconcileDueTransfers({ ignoreSchedule: true });
      s.heal();
      await automine(true);
      await mine(w().depth + 1);
      for (let i = 0; i < 4; i++) {
        await reconcileDueTransfers({ ignoreSchedule: true });
        await mine(10);
      }
      const [row] = await getDb().select().from(outboundTransfers).where(eq(outboundTransfers.fromAddress, address));
      const canceled = (await canceledSince(s.started)).length > 0;
      s.note(canceled ? 'cancel signed' : 'no cancel needed');
      if (row!.status === 'failed') s.expectFailed(row!.id);
      s.note(row!.status === 'failed' ? 'the cancel was mined' : 'the original was mined');
      await s.expectArrival('wallet send', destination, row!.status === 'failed' ? 0n : units('3'), 0n);
    },
  );
});

describe('the cancel path, RPC timeouts and hangs, HTTP 429 on send (N10)', () => {
  scenario(
    TIMEOUTS,
    'sends of a USDC refund, its top-up and a withdrawal answered by 429s, 503s and hangs past the 10 s timeout: nothing canceled, each lands once',
    async (s) => {
      const paid = await paidCharge('2', { sweeps: false });
      s.requireFault('transport_http_429', 'transport_hang', 'transport_http_503');
      await withdrawAndRefundWhileSendsFail(s, { units, withdrawal, refundCtx }, paid, {
        count: 8,
        kinds: ['http_429', 'hang', 'http_503', 'http_429', 'rpc_limit', 'http_429', 'http_503', 'http_429'],
      });
      for (let i = 0; i < 10; i++) {
        await mine(5);
        await reconcileDueTransfers({ ignoreSchedule: true });
        await pause(300);
      }
      expect(await canceledSince(s.started)).toEqual([]);
      const held = await getDb()
        .select({ transportFailures: outboundTransfers.transportFailures, broadcastFailures: outboundTransfers.broadcastFailures })
        .from(outboundTransfers)
        .where(gt(outboundTransfers.createdAt, s.started));
      expect(held.every((t) => t.broadcastFailures === 0)).toBe(true);
    },
  );

  scenario(
    TIMEOUTS,
    'a USDC balance payment while reads answer slowly (1.5 s) and a receipt read, a block read and a head read hang past the 10 s timeout',
    async (s) => {
      const consumer = await newConsumer('10');
      const charge = await newCharge('4');
      s.expectCharge(charge.chargeId, 'succeeded');
      s.inject({
        delayMs: 1_500,
        delayMethods: ['eth_getBalance', 'eth_estimateGas'],
        transportFaults: {
          count: 3,
          kinds: ['hang', 'http_429', 'rpc_internal'],
          methods: ['eth_getTransactionReceipt', 'eth_blockNumber', 'eth_getBlockByNumber'],
        },
      });
      s.requireFault('delay', 'transport_hang');
      await retried(() => payFromBalance({ userId: consumer.userId, chargeId: charge.chargeId, pin: PIN }));
      for (let i = 0; i < 3; i++) {
        await mine(10);
        await jobsOnce({ sweeps: false });
      }
      expect(await canceledSince(s.started)).toEqual([]);
    },
  );
});
