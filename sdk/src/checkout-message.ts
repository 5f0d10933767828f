/**
 * The protocol between `pay()` and the hosted checkout opened as a popup, as pure functions (no DOM),
 * so the security checks are unit-tested on their own.
 *
 * The SDK opens `{checkout}?mode=popup&origin={merchant origin}`. When the charge reaches a final
 * status, the checkout posts `{ type: 'chargeport:checkout', chargeId, status }` to its opener with
 * that origin as targetOrigin, then closes. The merchant page trusts a message only if it comes from
 * the checkout's origin, from the very popup it opened, has this shape and names the expected charge.
 * The app side is lib/charges/checkout-popup.ts; sdk/test/checkout-message.test.ts keeps them in step.
 */

/** `data.type` of the checkout's message. */
export const CHECKOUT_MESSAGE_TYPE = 'chargeport:checkout';

/** The statuses the checkout reports: the final ones of the charge state machine. */
export const FINAL_CHECKOUT_STATUSES = ['succeeded', 'canceled', 'expired', 'failed'] as const;
export type FinalCheckoutStatus = (typeof FINAL_CHECKOUT_STATUSES)[number];

/** What a checkout popup posts to its opener. */
export interface CheckoutMessage {
  type: typeof CHECKOUT_MESSAGE_TYPE;
  chargeId: string;
  status: FinalCheckoutStatus;
}

/** The parts of a `MessageEvent` the check reads. */
export interface MessageEventLike {
  origin: string;
  source: unknown;
  data: unknown;
}

export interface ExpectedCheckout {
  /** Origin of the checkout page, e.g. `https://pay.example.com`. */
  checkoutOrigin: string;
  /** The window `pay()` opened; messages from any other window (or frame) are ignored. */
  popup: unknown;
  chargeId: string;
}

/**
 * The final status reported by `event`, or `undefined` when the event is not a genuine message of
 * the expected checkout: another origin, another window, another charge, or another shape.
 */
export function checkoutMessageFrom(event: MessageEventLike, expected: ExpectedCheckout): FinalCheckoutStatus | undefined {
  if (event.origin !== expected.checkoutOrigin) return undefined;
  if (event.source === null || event.source !== expected.popup) return undefined;
  const data = event.data;
  if (typeof data !== 'object' || data === null) return undefined;
  const { type, chargeId, status } = data as Record<string, unknown>;
  if (type !== CHECKOUT_MESSAGE_TYPE || chargeId !== expected.chargeId) return undefined;
  return isFinalCheckoutStatus(status) ? status : undefined;
}

export function isFinalCheckoutStatus(value: unknown): value is FinalCheckoutStatus {
  return (FINAL_CHECKOUT_STATUSES as readonly unknown[]).includes(value);
}

/** A charge to pay: its id (with the client's `baseUrl`), its `paymentUrl`, or `createCharge`'s result. */
export type CheckoutRef = string | { chargeId: string; paymentUrl?: string };

export interface ResolvedCheckout {
  chargeId: string;
  /** The hosted checkout page of the charge, without the popup parameters. */
  url: URL;
}

const CHARGE_ID_PATTERN = /^ch_[0-9A-Za-z]+$/;
const CHECKOUT_PATH_PATTERN = /^(.*)\/checkout\/(ch_[0-9A-Za-z]+)$/;

/**
 * Where the checkout of `ref` is. A `paymentUrl` is used as is (so the popup goes exactly where
 * `createCharge` said); a bare id needs `baseUrl`.
 *
 * @throws {TypeError} for something that is neither a charge id nor a checkout URL.
 */
export function resolveCheckout(ref: CheckoutRef, baseUrl?: string): ResolvedCheckout {
  const value = typeof ref === 'string' ? ref : (ref.paymentUrl ?? ref.chargeId);
  if (CHARGE_ID_PATTERN.test(value)) {
    if (!baseUrl) throw new TypeError('pay(chargeId) needs the baseUrl of Chargeport; pass a paymentUrl instead, or use the client');
    const base = parseHttpUrl(baseUrl, 'baseUrl');
    return { chargeId: value, url: new URL(`${base.href.replace(/\/+$/, '')}/checkout/${value}`) };
  }
  const url = parseHttpUrl(value, 'paymentUrl');
  const match = CHECKOUT_PATH_PATTERN.exec(url.pathname);
  if (!match) throw new TypeError(`Not a Chargeport checkout URL (…/checkout/ch_…): ${value}`);
  const chargeId = match[2]!;
  if (typeof ref !== 'string' && ref.chargeId !== chargeId)
    throw new TypeError(`paymentUrl is the checkout of ${chargeId}, not of ${ref.chargeId}`);
  url.search = '';
  url.hash = '';
  return { chargeId, url };
}

/** The checkout URL for a popup opened by a page of `openerOrigin`. */
export function popupCheckoutUrl(checkout: ResolvedCheckout, openerOrigin: string): string {
  const url = new URL(checkout.url.href);
  url.searchParams.set('mode', 'popup');
  url.searchParams.set('origin', openerOrigin);
  return url.href;
}

function parseHttpUrl(value: string, name: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new TypeError(`${name} must be an http(s) URL, got ${JSON.stringify(value)}`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new TypeError(`${name} must be an http(s) URL, got ${JSON.stringify(value)}`);
  return url;
}
