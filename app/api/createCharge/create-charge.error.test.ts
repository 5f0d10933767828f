import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { getDb } from '@/lib/db/client';
import { merchants } from '@/lib/db/schema';
import {
  NATIVE_EVM,
  POLYGON_USDC,
  callRoute,
  newMerchant,
  newPublishableKey,
  serveChainsWithoutNode,
  storedCounts,
  testCharge,
  usdcCharge,
  type CallOptions,
  type TestMerchant,
} from '@/test/fixtures';
import { POST } from './route';

let merchant: TestMerchant;
let unverified: TestMerchant & { liveKey: string };
let publishableKey: string;

beforeAll(async () => {
  // The suite runs POLYGON and POLYGON_AMOY; Solana is configured here, DFK and BSC_TESTNET are not.
  serveChainsWithoutNode('SOLANA');
  merchant = await newMerchant({ verified: true });
  publishableKey = await newPublishableKey(merchant.id, 'live');
  // A merchant whose verification was withdrawn after its production key was issued.
  const withdrawn = await newMerchant({ verified: true });
  await getDb().update(merchants).set({ verifiedAt: null }).where(eq(merchants.id, withdrawn.id));
  unverified = withdrawn as TestMerchant & { liveKey: string };
});

type Case = {
  name: string;
  request: () => CallOptions;
  status: number;
  code: string;
  param?: string;
  message?: RegExp;
};

const live = (body: unknown): CallOptions => ({ apiKey: merchant.liveKey, body });
const test = (body: unknown): CallOptions => ({ apiKey: merchant.testKey, body });
const SOLANA_ADDRESS = '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM';

const cases: Case[] = [
  // Authentication
  { name: 'no x-api-key header', request: () => ({ body: usdcCharge() }), status: 401, code: 'missing_api_key', message: /x-api-key/ },
  {
    name: 'a key that is not a Chargeport key',
    request: () => ({ apiKey: 'sk_test_123', body: usdcCharge() }),
    status: 401,
    code: 'invalid_api_key',
  },
  {
    name: 'a well-formed key nobody issued',
    request: () => ({ apiKey: 'cp_live_0000000000000000000000000000000A', body: usdcCharge() }),
    status: 401,
    code: 'invalid_api_key',
  },
  // Dust: below the token's smallest charge (fees would cost more than it brings, and the gas tank pays them)
  {
    name: 'a USDC charge below 0.10',
    request: () => live(usdcCharge({ items: [{ name: 'Sticker', amount: '0.09', quantity: 1 }] })),
    status: 422,
    code: 'amount_below_minimum',
    param: 'chargeData.items',
    message: /smallest charge in USDC is 0\.1 USDC/,
  },
  {
    name: 'items totalling less than the POL minimum',
    request: () =>
      live({
        chargeData: {
          symbol: 'POL',
          chain: 'POLYGON',
          tokenAddress: '0x0000000000000000000000000000000000000000',
          items: [{ name: 'Pebble', amount: '0.01', quantity: 3 }],
        },
      }),
    status: 422,
    code: 'amount_below_minimum',
    param: 'chargeData.items',
    message: /smallest charge in POL is 0\.1 POL \(this one totals 0\.03\)/,
  },
  // Body format
  { name: 'malformed JSON', request: () => live('{"chargeData": '), status: 400, code: 'invalid_json' },
  { name: 'empty body', request: () => live(''), status: 400, code: 'invalid_json' },
  {
    name: 'form-encoded body',
    request: () => ({ apiKey: merchant.liveKey, body: 'a=1', headers: { 'content-type': 'application/x-www-form-urlencoded' } }),
    status: 415,
    code: 'unsupported_media_type',
  },
  {
    name: 'a body over 64 KiB',
    request: () => live(usdcCharge({ metadata: { note: 'x'.repeat(70_000) } })),
    status: 413,
    code: 'payload_too_large',
  },
  { name: 'a JSON array instead of an object', request: () => live('[]'), status: 400, code: 'invalid_request' },
  { name: 'chargeData missing', request: () => live({ isTest: false }), status: 400, code: 'invalid_request', param: 'chargeData' },
  {
    name: 'an unknown field (typo)',
    request: () => live(usdcCharge({ sucessUrl: 'https://x.example' })),
    status: 400,
    code: 'invalid_request',
    param: 'chargeData.sucessUrl',
    message: /Unknown field sucessUrl/,
  },
  {
    name: 'symbol missing',
    request: () => live(usdcCharge({ symbol: undefined })),
    status: 400,
    code: 'invalid_request',
    param: 'chargeData.symbol',
  },
  {
    name: 'chain missing',
    request: () => live(usdcCharge({ chain: undefined })),
    status: 400,
    code: 'invalid_request',
    param: 'chargeData.chain',
  },
  {
    name: 'tokenAddress missing',
    request: () => live(usdcCharge({ tokenAddress: undefined })),
    status: 400,
    code: 'invalid_request',
    param: 'chargeData.tokenAddress',
  },
  {
    name: 'isTest not a boolean',
    request: () => live(usdcCharge({}, { isTest: 'yes' })),
    status: 400,
    code: 'invalid_request',
    param: 'isTest',
  },
  {
    name: 'successUrl not absolute',
    request: () => live(usdcCharge({ successUrl: '/thanks' })),
    status: 400,
    code: 'invalid_request',
    param: 'chargeData.successUrl',
    message: /absolute http\(s\) URL/,
  },
  {
    name: 'cancelUrl with another scheme',
    request: () => live(usdcCharge({ cancelUrl: 'javascript:alert(1)' })),
    status: 400,
    code: 'invalid_request',
    param: 'chargeData.cancelUrl',
  },
  {
    name: 'item image not a URL',
    request: () => live(usdcCharge({ items: [{ name: 'A', image: 'gem.png', amount: 1, quantity: 1 }] })),
    status: 400,
    code: 'invalid_request',
    param: 'chargeData.items.0.image',
  },
  {
    name: 'quantity zero',
    request: () => live(usdcCharge({ items: [{ name: 'A', amount: 1, quantity: 0 }] })),
    status: 400,
    code: 'invalid_request',
    param: 'chargeData.items.0.quantity',
    message: /positive integer/,
  },
  {
    name: 'fractional quantity',
    request: () => live(usdcCharge({ items: [{ name: 'A', amount: 1, quantity: 1.5 }] })),
    status: 400,
    code: 'invalid_request',
    param: 'chargeData.items.0.quantity',
  },
  {
    name: 'negative amount',
    request: () => live(usdcCharge({ items: undefined, amount: -5 })),
    status: 400,
    code: 'invalid_request',
    param: 'chargeData.amount',
  },
  {
    name: 'amount that is not a number',
    request: () => live(usdcCharge({ items: [{ name: 'A', amount: 'ten', quantity: 1 }] })),
    status: 400,
    code: 'invalid_request',
    param: 'chargeData.items.0.amount',
  },
  {
    name: 'item name empty',
    request: () => live(usdcCharge({ items: [{ name: ' ', amount: 1, quantity: 1 }] })),
    status: 400,
    code: 'invalid_request',
    param: 'chargeData.items.0.name',
  },
  {
    name: 'item name too long',
    request: () => live(usdcCharge({ items: [{ name: 'n'.repeat(201), amount: 1, quantity: 1 }] })),
    status: 400,
    code: 'invalid_request',
    param: 'chargeData.items.0.name',
  },
  {
    name: 'more than 100 items',
    request: () => live(usdcCharge({ items: Array.from({ length: 101 }, () => ({ name: 'A', amount: 1, quantity: 1 })) })),
    status: 400,
    code: 'invalid_request',
    param: 'chargeData.items',
  },
  {
    name: 'too many metadata keys',
    request: () => live(usdcCharge({ metadata: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v'])) })),
    status: 400,
    code: 'invalid_request',
    param: 'chargeData.metadata',
  },
  {
    name: 'neither items nor amount',
    request: () => live(usdcCharge({ items: undefined })),
    status: 400,
    code: 'invalid_request',
    param: 'chargeData.items',
    message: /items .* or chargeData.amount/,
  },
  {
    name: 'isDirectTransfer without toAddress',
    request: () => live(usdcCharge({}, { isDirectTransfer: true })),
    status: 400,
    code: 'invalid_request',
    param: 'chargeData.toAddress',
  },
  // Registry rules
  {
    name: 'a chain the registry does not know',
    request: () => live(usdcCharge({ chain: 'ETHEREUM' })),
    status: 422,
    code: 'unsupported_chain',
    param: 'chargeData.chain',
    message: /Supported chains: POLYGON/,
  },
  {
    name: 'a test network with a production key',
    request: () => live(usdcCharge({ chain: 'POLYGON_AMOY', symbol: 'POL', tokenAddress: NATIVE_EVM })),
    status: 422,
    code: 'unsupported_chain',
    param: 'chargeData.chain',
  },
  {
    name: 'a chain no RPC URL serves (nothing would watch it)',
    request: () => live(usdcCharge({ chain: 'DFK', symbol: 'JEWEL', tokenAddress: NATIVE_EVM })),
    status: 422,
    code: 'chain_not_configured',
    param: 'chargeData.chain',
    message: /Charges on DFK are not available: no RPC endpoint is configured for DFK .*RPC_URL_DFK\)/,
  },
  {
    name: 'a test charge whose test network no RPC URL serves',
    request: () => test(testCharge({ chain: 'BSC', symbol: 'BNB' })),
    status: 422,
    code: 'chain_not_configured',
    param: 'chargeData.chain',
    message: /BSC_TESTNET \(the test network of BSC\).*RPC_URL_BSC_TESTNET/,
  },
  {
    name: 'a token address unknown on the chain',
    request: () => live(usdcCharge({ tokenAddress: '0x1111111111111111111111111111111111111111' })),
    status: 422,
    code: 'unsupported_token',
    param: 'chargeData.tokenAddress',
  },
  {
    name: 'a symbol that does not match the token address',
    request: () => live(usdcCharge({ symbol: 'USDT' })),
    status: 422,
    code: 'unsupported_token',
    param: 'chargeData.symbol',
    message: /which is USDC/,
  },
  {
    name: 'a test charge in an ERC-20 token (test charges use native tokens only)',
    request: () => test(testCharge({ symbol: 'USDC', tokenAddress: POLYGON_USDC })),
    status: 422,
    code: 'unsupported_token',
    message: /only the native token/,
  },
  {
    name: 'a malformed token address',
    request: () => live(usdcCharge({ tokenAddress: '0x123' })),
    status: 422,
    code: 'invalid_address',
    param: 'chargeData.tokenAddress',
  },
  {
    name: 'an EVM address with a wrong checksum',
    request: () => live(usdcCharge({ toAddress: '0x70997970C51812dc3A010C7d01b50e0d17dc79c8' })),
    status: 422,
    code: 'invalid_address',
    param: 'chargeData.toAddress',
  },
  {
    name: 'an EVM toAddress on Solana',
    request: () =>
      live({
        chargeData: {
          symbol: 'SOL',
          chain: 'SOLANA',
          tokenAddress: 'So11111111111111111111111111111111111111112',
          amount: 1,
          toAddress: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
        },
      }),
    status: 422,
    code: 'invalid_address',
    param: 'chargeData.toAddress',
  },
  {
    name: 'a Solana address on an EVM chain',
    request: () => live(usdcCharge({ toAddress: SOLANA_ADDRESS })),
    status: 422,
    code: 'invalid_address',
    param: 'chargeData.toAddress',
  },
  // Amount rules
  {
    name: 'more fractional digits than the token has (USDC has 6)',
    request: () => live(usdcCharge({ items: [{ name: 'A', amount: '1.0000001', quantity: 1 }] })),
    status: 422,
    code: 'invalid_amount',
    param: 'chargeData.items.0.amount',
    message: /more than 6 fractional digits/,
  },
  {
    name: 'a zero amount',
    request: () => live(usdcCharge({ items: undefined, amount: 0 })),
    status: 422,
    code: 'invalid_amount',
    param: 'chargeData.amount',
  },
  {
    name: 'an amount over 2^256 base units',
    request: () => live(usdcCharge({ items: undefined, amount: '9'.repeat(75) })),
    status: 422,
    code: 'invalid_amount',
    param: 'chargeData.amount',
  },
  {
    name: 'amount that disagrees with the items',
    request: () => live(usdcCharge({ items: [{ name: 'A', amount: 0.1, quantity: 3 }], amount: 0.300001 })),
    status: 422,
    code: 'amount_mismatch',
    param: 'chargeData.amount',
    message: /0\.300001 does not equal the items' total 0\.3/,
  },
  // Key and mode rules
  { name: 'isTest true with a production key', request: () => live(testCharge()), status: 403, code: 'test_key_required', param: 'isTest' },
  {
    name: 'isTest false with a test key',
    request: () => test(usdcCharge({}, { isTest: false })),
    status: 403,
    code: 'live_key_required',
    param: 'isTest',
  },
  {
    name: 'a direct transfer with a test key',
    request: () => test(testCharge({ toAddress: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8' }, { isDirectTransfer: true })),
    status: 403,
    code: 'live_key_required',
    param: 'isDirectTransfer',
  },
  {
    name: 'a direct transfer by a merchant without business verification',
    request: () => ({
      apiKey: unverified.liveKey,
      body: usdcCharge({ toAddress: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8' }, { isDirectTransfer: true }),
    }),
    status: 403,
    code: 'verification_required',
  },
  {
    name: 'a publishable key sending funds to toAddress',
    request: () => ({ apiKey: publishableKey, body: usdcCharge({ toAddress: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8' }) }),
    status: 403,
    code: 'key_not_permitted',
    param: 'chargeData.toAddress',
  },
  {
    name: 'an Idempotency-Key longer than 255 characters',
    request: () => ({ apiKey: merchant.liveKey, body: usdcCharge(), headers: { 'idempotency-key': 'k'.repeat(256) } }),
    status: 400,
    code: 'invalid_request',
    param: 'Idempotency-Key',
  },
];

describe('POST /api/createCharge — each bad input has its status and code, and stores nothing', () => {
  it.each(cases)('$name → $status $code', async ({ request, status, code, param, message }) => {
    const options = request();
    const owner = options.apiKey === unverified.liveKey ? unverified.id : merchant.id;
    const before = await storedCounts(owner);
    const res = await callRoute(POST, options);
    expect(res.status).toBe(status);
    expect(res.json.data).toBeNull();
    expect(res.json.error?.code).toBe(code);
    expect(res.json.error?.message.length).toBeGreaterThan(10);
    if (param) expect(res.json.error?.param).toBe(param);
    if (message) expect(res.json.error?.message).toMatch(message);
    expect(res.headers.get('x-request-id')).toBeTruthy();
    expect(await storedCounts(owner)).toEqual(before);
  });

  it('a revoked key is refused', async () => {
    const { revokeApiKey } = await import('@/lib/api-keys/revoke-api-key');
    const { createApiKey } = await import('@/lib/api-keys/create-api-key');
    const key = await createApiKey({ merchantId: merchant.id, mode: 'live' });
    expect((await callRoute(POST, { apiKey: key.plaintext, body: usdcCharge() })).status).toBe(200);
    await revokeApiKey(key.id);
    const res = await callRoute(POST, { apiKey: key.plaintext, body: usdcCharge() });
    expect(res.status).toBe(401);
    expect(res.json.error?.code).toBe('invalid_api_key');
  });

  it('an unexpected failure is a generic 500 that leaks nothing', async () => {
    const { withApiKey } = await import('@/lib/api/with-api-key');
    const broken = withApiKey(async () => {
      throw new Error('connection to db.internal:5432 refused, password=hunter2');
    });
    const res = await callRoute(broken, { apiKey: merchant.liveKey });
    expect(res.status).toBe(500);
    expect(res.json.error?.code).toBe('internal_error');
    expect(res.json.error?.message).not.toMatch(/db\.internal|hunter2/);
    expect(res.json.error?.message).toContain(res.headers.get('x-request-id')!);
  });
});
