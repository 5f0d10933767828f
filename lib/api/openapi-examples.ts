/**
 * Examples for the OpenAPI document: one realistic object per resource, from which every request and
 * response example is built. openapi.test.ts parses each one with the zod schema it illustrates, so an
 * example cannot drift from the wire format; Redocly checks them against the document too.
 */
import type { ChargeResource } from '@/lib/charges/schemas';
import type { RefundResource } from '@/lib/refunds/schemas';
import type { WebhookEventType } from '@/lib/webhooks/event-types';
import type { WebhookEndpointResource, WebhookEventPayload } from '@/lib/webhooks/schemas';

const CHARGE_ID = 'ch_4Vd9TQ1aQm2xA7bC3dE5fG';
const CREATED = '2026-03-01T12:00:00.000Z';
const PAID = '2026-03-01T12:03:10.000Z';
const PAYER = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const TX = '0x8f0d3a2c1e5b4d6f7a9b0c1d2e3f405162738495a6b7c8d9e0f1a2b3c4d5e6f7';

export function exampleCreateChargeRequest() {
  return {
    chargeData: {
      symbol: 'USDC',
      chain: 'POLYGON',
      tokenAddress: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359',
      successUrl: 'https://game.example/success',
      cancelUrl: 'https://game.example/cancel',
      items: [{ name: 'Gem pack', image: 'https://game.example/gems.png', amount: '4.99', quantity: 1 }],
      metadata: { orderId: '1001' },
    },
  };
}

export function exampleUsdPricedRequest() {
  return {
    chargeData: {
      symbol: 'POL',
      chain: 'POLYGON',
      tokenAddress: '0x0000000000000000000000000000000000000000',
      pricing: { currency: 'USD', amount: '4.99' },
      successUrl: 'https://game.example/success',
    },
  };
}

export function exampleCreateChargeResult() {
  return { chargeId: CHARGE_ID, paymentUrl: `https://pay.example.com/checkout/${CHARGE_ID}` };
}

export function exampleCharge(overrides: Partial<ChargeResource> = {}): ChargeResource {
  return {
    id: CHARGE_ID,
    object: 'charge',
    mode: 'live',
    status: 'pending',
    chain: 'POLYGON',
    token: { symbol: 'USDC', address: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359', decimals: 6 },
    amount: '4.99',
    amountBaseUnits: '4990000',
    items: [{ name: 'Gem pack', image: 'https://game.example/gems.png', amount: '4.99', quantity: 1, lineTotal: '4.99' }],
    destination: 'merchant_wallet',
    toAddress: null,
    isDirectTransfer: false,
    successUrl: 'https://game.example/success',
    cancelUrl: 'https://game.example/cancel',
    metadata: { orderId: '1001' },
    pricing: null,
    paidUnderAllowance: false,
    paymentUrl: `https://pay.example.com/checkout/${CHARGE_ID}`,
    expiresAt: '2026-03-01T13:00:00.000Z',
    createdAt: CREATED,
    updatedAt: CREATED,
    ...overrides,
  };
}

/** The charge once paid, with its timeline and payment (a single-charge response). */
export function examplePaidCharge(): ChargeResource {
  return exampleCharge({
    status: 'succeeded',
    updatedAt: PAID,
    timeline: [
      { status: 'pending', type: 'charge.pending', at: CREATED },
      { status: 'processing', type: 'charge.processing', at: '2026-03-01T12:02:58.000Z' },
      { status: 'succeeded', type: 'charge.succeeded', at: PAID },
    ],
    payments: [
      {
        id: 'pay_7Hk2LmN4pQ6rS8tU0vW2xY',
        chain: 'POLYGON',
        txHash: TX,
        fromAddress: PAYER,
        amount: '4.99',
        amountBaseUnits: '4990000',
        status: 'confirmed',
        isLate: false,
        blockNumber: '68123456',
        createdAt: '2026-03-01T12:02:58.000Z',
      },
    ],
  });
}

export function exampleRefund(overrides: Partial<RefundResource> = {}): RefundResource {
  return {
    id: 'rf_4Vd9TQ1aQm2xA7bC3dE5fG',
    object: 'refund',
    chargeId: CHARGE_ID,
    mode: 'live',
    status: 'pending',
    chain: 'POLYGON',
    token: { symbol: 'USDC', address: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359', decimals: 6 },
    amount: '4.99',
    amountBaseUnits: '4990000',
    destination: PAYER,
    source: 'merchant_wallet',
    claimExpiresAt: null,
    reason: 'Customer request',
    transactionHash: null,
    failureReason: null,
    timeline: [{ status: 'pending', at: '2026-03-02T09:00:00.000Z' }],
    createdAt: '2026-03-02T09:00:00.000Z',
    ...overrides,
  };
}

export function exampleWebhookEndpoint(): WebhookEndpointResource {
  return {
    id: 'we_4Vd9TQ1aQm2xA7bC3dE5fG',
    object: 'webhook_endpoint',
    mode: 'live',
    url: 'https://game.example/webhooks/chargeport',
    description: 'Production receiver',
    eventTypes: ['charge.succeeded', 'refund.succeeded'],
    enabled: true,
    status: 'active',
    failingSince: null,
    disabledReason: null,
    previousSecretExpiresAt: null,
    createdAt: CREATED,
    updatedAt: CREATED,
  };
}

export const EXAMPLE_WEBHOOK_SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw8Yp2y7K4qnw=';

/** An event of each type, as delivered. */
export function exampleEvent(type: WebhookEventType): WebhookEventPayload {
  const base = { id: 'wevt_4Vd9TQ1aQm2xA7bC3dE5fG', object: 'event' as const, type, mode: 'live' as const, sequence: 3, createdAt: PAID };
  switch (type) {
    case 'charge.created':
      return { ...base, sequence: 1, createdAt: CREATED, data: { charge: exampleCharge({ payments: [] }) } };
    case 'charge.processing':
      return { ...base, data: { charge: { ...examplePaidCharge(), status: 'processing', timeline: undefined } } };
    case 'charge.succeeded':
      return { ...base, data: { charge: { ...examplePaidCharge(), timeline: undefined } } };
    case 'charge.failed':
    case 'charge.expired':
    case 'charge.canceled':
      return {
        ...base,
        data: { charge: exampleCharge({ status: type.slice('charge.'.length) as 'failed', payments: [], updatedAt: PAID }) },
      };
    case 'charge.payment_reversed': {
      const paid = examplePaidCharge();
      return {
        ...base,
        sequence: 4,
        data: {
          charge: { ...paid, timeline: undefined, payments: paid.payments?.map((p) => ({ ...p, status: 'dropped' as const })) },
          reversedPayment: { txHash: TX, amountBaseUnits: '4990000', chain: 'POLYGON', blockNumber: '68123456' },
        },
      };
    }
    case 'payment.failed':
      return {
        ...base,
        data: {
          charge: exampleCharge({ payments: [] }),
          paymentAttempt: {
            id: 'otx_3Jk5Mn7Pq9Rs1Tu3Vw5Xy7',
            method: 'balance',
            chain: 'POLYGON',
            txHash: TX,
            reason: 'transaction reverted',
          },
        },
      };
    case 'refund.created':
    case 'refund.claimed':
    case 'refund.succeeded':
    case 'refund.failed': {
      const status =
        type === 'refund.created' || type === 'refund.claimed' ? 'pending' : type === 'refund.succeeded' ? 'succeeded' : 'failed';
      return {
        ...base,
        data: {
          charge: { ...examplePaidCharge(), timeline: undefined },
          refund: exampleRefund({
            status,
            transactionHash: status === 'pending' ? null : TX,
            failureReason: status === 'failed' ? 'execution reverted' : null,
          }),
        },
      };
    }
    case 'refund.expired':
      return {
        ...base,
        data: {
          charge: { ...examplePaidCharge(), timeline: undefined },
          refund: exampleRefund({
            status: 'expired',
            destination: null,
            source: null,
            timeline: [
              { status: 'awaiting_claim', at: '2026-03-02T09:00:00.000Z' },
              { status: 'expired', at: '2026-04-01T09:00:00.000Z' },
            ],
          }),
        },
      };
    case 'fulfilment.succeeded':
    case 'fulfilment.failed': {
      const failed = type === 'fulfilment.failed';
      return {
        ...base,
        data: {
          charge: { ...examplePaidCharge(), timeline: undefined },
          fulfilment: {
            id: 'ful_4Vd9TQ1aQm2xA7bC3dE5fG',
            object: 'fulfilment',
            chargeId: 'ch_4Vd9TQ1aQm2xA7bC3dE5fG',
            ruleId: 'frl_4Vd9TQ1aQm2xA7bC3dE5fG',
            mode: 'live',
            status: failed ? 'failed' : 'succeeded',
            chain: 'POLYGON',
            contractAddress: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
            function: 'mint(address,uint256,uint256)',
            recipient: '0x8ba1f109551bD432803012645Ac136ddd64DBA72',
            args: ['0x8ba1f109551bD432803012645Ac136ddd64DBA72', '1001', '1'],
            transactionHash: failed ? null : TX,
            failureReason: failed ? 'execution reverted: AccessControl: missing role' : null,
            attempts: 1,
            createdAt: PAID,
            updatedAt: PAID,
          },
        },
      };
    }
  }
}
