/**
 * Every prefixed random identifier in the product comes from newId (a test in ids.test.ts fails on a hand-made one).
 * Prefixed random identifiers (`ch_…`, `mer_…`) and API key material. A prefix tells a reader what
 * an id names; 22 base62 characters carry ~131 bits, enough that ids cannot be guessed.
 */
import { randomFillSync } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** CSPRNG bytes drawn 4 KiB at a time (as crypto.randomUUID does): a request makes several ids. */
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;

function randomByte(): number {
  if (poolOffset === pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  return pool[poolOffset++]!;
}

export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    const byte = randomByte();
    // 248 = 4 × 62: discard the top bytes so every character is equally likely.
    if (byte < 248) out += BASE62[byte % 62];
  }
  return out;
}

export const ID_PREFIXES = {
  charge: 'ch',
  chargeEvent: 'evt',
  merchant: 'mer',
  apiKey: 'key',
  user: 'usr',
  authIdentity: 'idn',
  verificationCode: 'vc',
  wallet: 'wal',
  walletExport: 'wex',
  depositAddress: 'dep',
  payment: 'pay',
  outboundTransfer: 'otx',
  transferAttempt: 'ota',
  refund: 'rf',
  // `evt_` already names charge timeline events (charge_events); webhook events get their own prefix.
  webhookEndpoint: 'we',
  webhookEvent: 'wevt',
  webhookDelivery: 'wdl',
  eventStreamLease: 'esl',
  auditEntry: 'aud',
  invitation: 'inv',
  passkey: 'pk',
  recoveryCode: 'rc',
  onrampOrder: 'ord',
  onrampOrderEvent: 'oev',
  onrampWebhookReceipt: 'owr',
  merchantContract: 'mct',
  fulfilmentRule: 'ffr',
  fulfilment: 'ful',
  stepUpRefusal: 'sur',
  withdrawal: 'wdr',
  refundRequest: 'rfq',
  walletSend: 'wsend',
  walletIncomingTransfer: 'win',
  swapExecution: 'swx',
  strayDeposit: 'sdp',
  depositRecovery: 'rcv',
  oauthApp: 'cpapp',
  oauthPaymentRequest: 'opr',
  oauthSigningKey: 'sk',
  spendingAllowance: 'alw',
  // The sandbox provider plays an outside provider, whose ids are its own.
  sandboxSession: 'sps',
  sandboxWebhookEvent: 'evt',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

export function newId(kind: IdKind): string {
  return `${ID_PREFIXES[kind]}_${randomBase62(22)}`;
}

export function isIdOf(kind: IdKind, value: string): boolean {
  return new RegExp(`^${ID_PREFIXES[kind]}_[0-9A-Za-z]{22}$`).test(value);
}
