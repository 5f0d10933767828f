import { describe, expect, it } from 'vitest';
import type { MessageEventLike } from '../src/checkout-message';
import { ChargeportError } from '../src/errors';
import { runPaySession, type PayEnvironment, type PayResult } from '../src/pay';

const MERCHANT = 'https://game.example';
const CHECKOUT = 'https://pay.example.com';

/** The browser parts of pay(), observable: the popup, message listeners, the overlay and the poll timer. */
function fakeBrowser({ blocked = false } = {}) {
  const popup = {
    closed: false,
    focusCount: 0,
    navigations: [] as string[],
    close() {
      popup.closed = true;
    },
    focus() {
      popup.focusCount += 1;
    },
    location: { replace: (url: string) => void popup.navigations.push(url) },
  };
  const opened: (string | undefined)[] = [];
  const listeners = new Set<(event: MessageEventLike) => void>();
  const ticks = new Set<() => void>();
  let overlay: { onShowWindow(): void; onCancel(): void } | undefined;
  let overlayVisible = false;
  const env: PayEnvironment = {
    openerOrigin: MERCHANT,
    openPopup: (url) => {
      opened.push(url);
      return blocked ? null : popup;
    },
    onMessage: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    showOverlay: (actions) => {
      overlay = actions;
      overlayVisible = true;
      return () => {
        overlayVisible = false;
      };
    },
    every: (_ms, tick) => {
      ticks.add(tick);
      return () => ticks.delete(tick);
    },
  };
  return {
    env,
    popup,
    opened,
    post: (event: Partial<MessageEventLike> & { data: unknown }) =>
      listeners.forEach((l) => l({ origin: CHECKOUT, source: popup, ...event })),
    tick: () => ticks.forEach((tick) => tick()),
    overlay: () => overlay!,
    isOverlayVisible: () => overlayVisible,
    /** Nothing left behind: no listener, no timer, no overlay. */
    isCleanedUp: () => listeners.size === 0 && ticks.size === 0 && !overlayVisible,
  };
}

const message = (chargeId: string, status: string) => ({ data: { type: 'chargeport:checkout', chargeId, status } });
/** Lets pending promise callbacks run. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

/** Tracks a promise's state without awaiting it. */
function track<T>(promise: Promise<T>) {
  const state: { result?: T; error?: unknown; done: boolean } = { done: false };
  promise.then(
    (result) => Object.assign(state, { result, done: true }),
    (error: unknown) => Object.assign(state, { error, done: true }),
  );
  return state;
}

describe('runPaySession (the logic of pay())', () => {
  it('opens the popup at once on the checkout in popup mode, naming the merchant origin, with the overlay', () => {
    const browser = fakeBrowser();
    void runPaySession('ch_abc', browser.env, { baseUrl: CHECKOUT });
    // Synchronously, inside the click handler: browsers block popups opened later.
    expect(browser.opened).toEqual([`${CHECKOUT}/checkout/ch_abc?mode=popup&origin=${encodeURIComponent(MERCHANT)}`]);
    expect(browser.isOverlayVisible()).toBe(true);
  });

  it("resolves with the checkout's final status and cleans up after itself", async () => {
    const browser = fakeBrowser();
    const session = runPaySession('ch_abc', browser.env, { baseUrl: CHECKOUT });
    browser.post(message('ch_abc', 'succeeded'));
    await expect(session).resolves.toEqual({ chargeId: 'ch_abc', status: 'succeeded' } satisfies PayResult);
    expect(browser.isCleanedUp()).toBe(true);
  });

  it('ignores messages from another origin, another window, another charge or with another shape', async () => {
    const browser = fakeBrowser();
    const state = track(runPaySession('ch_abc', browser.env, { baseUrl: CHECKOUT }));
    browser.post({ ...message('ch_abc', 'succeeded'), origin: 'https://evil.example' });
    browser.post({ ...message('ch_abc', 'succeeded'), source: { other: 'window' } });
    browser.post(message('ch_other', 'succeeded'));
    browser.post(message('ch_abc', 'processing'));
    browser.post({ data: 'succeeded' });
    await settle();
    expect(state.done).toBe(false);

    browser.post(message('ch_abc', 'canceled'));
    await settle();
    expect(state.result).toEqual({ chargeId: 'ch_abc', status: 'canceled' });
  });

  it('a closed window is dismissed one poll late, so that a message posted just before closing wins', async () => {
    const browser = fakeBrowser();
    const state = track(runPaySession('ch_abc', browser.env, { baseUrl: CHECKOUT }));
    browser.popup.close();
    browser.tick();
    await settle();
    expect(state.done).toBe(false);
    browser.post(message('ch_abc', 'succeeded'));
    await settle();
    expect(state.result).toEqual({ chargeId: 'ch_abc', status: 'succeeded' });

    const other = fakeBrowser();
    const dismissed = runPaySession('ch_abc', other.env, { baseUrl: CHECKOUT });
    other.popup.close();
    other.tick();
    other.tick();
    await expect(dismissed).resolves.toEqual({ chargeId: 'ch_abc', status: 'dismissed' });
    expect(other.isCleanedUp()).toBe(true);
  });

  it('on dismissal, lookupStatus turns a charge that did finish into its final status; otherwise dismissed', async () => {
    const dismissWith = async (lookupStatus: (id: string) => Promise<string>) => {
      const browser = fakeBrowser();
      const session = runPaySession('ch_abc', browser.env, { baseUrl: CHECKOUT, lookupStatus });
      browser.popup.close();
      browser.tick();
      browser.tick();
      return (await session).status;
    };
    expect(await dismissWith(async () => 'succeeded')).toBe('succeeded');
    expect(await dismissWith(async () => 'processing')).toBe('dismissed');
    expect(await dismissWith(async () => 'pending')).toBe('dismissed');
    expect(await dismissWith(async () => Promise.reject(new Error('offline')))).toBe('dismissed');
  });

  it('"Show window" focuses the popup; "Cancel payment" closes it and resolves dismissed', async () => {
    const browser = fakeBrowser();
    const session = runPaySession('ch_abc', browser.env, { baseUrl: CHECKOUT });
    browser.overlay().onShowWindow();
    expect(browser.popup.focusCount).toBe(1);
    browser.overlay().onCancel();
    expect(browser.popup.closed).toBe(true);
    await expect(session).resolves.toEqual({ chargeId: 'ch_abc', status: 'dismissed' });
    expect(browser.isCleanedUp()).toBe(true);
  });

  it('a blocked popup rejects with popup_blocked and shows nothing', async () => {
    const browser = fakeBrowser({ blocked: true });
    const error = await runPaySession('ch_abc', browser.env, { baseUrl: CHECKOUT }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ChargeportError);
    expect(error).toMatchObject({ code: 'popup_blocked', status: 0 });
    expect(browser.isCleanedUp()).toBe(true);
  });

  it('a paymentUrl: the popup goes there, and messages must come from its origin', async () => {
    const browser = fakeBrowser();
    const session = runPaySession('https://checkout.example.net/checkout/ch_abc', browser.env, { baseUrl: CHECKOUT });
    expect(browser.opened[0]).toMatch(/^https:\/\/checkout\.example\.net\/checkout\/ch_abc\?mode=popup&/);
    browser.post(message('ch_abc', 'succeeded')); // from CHECKOUT: not the popup's origin
    browser.post({ ...message('ch_abc', 'expired'), origin: 'https://checkout.example.net' });
    await expect(session).resolves.toEqual({ chargeId: 'ch_abc', status: 'expired' });
  });

  it('a promise (createCharge in the same click): opens a blank popup at once, then navigates it to the checkout', async () => {
    const browser = fakeBrowser();
    let create!: (value: { chargeId: string; paymentUrl: string }) => void;
    const state = track(runPaySession(new Promise((resolve) => (create = resolve)), browser.env));
    expect(browser.opened).toEqual([undefined]);
    browser.post(message('ch_abc', 'succeeded')); // before the charge is known: ignored
    await settle();
    expect(state.done).toBe(false);

    create({ chargeId: 'ch_abc', paymentUrl: `${CHECKOUT}/checkout/ch_abc` });
    await settle();
    expect(browser.popup.navigations).toEqual([`${CHECKOUT}/checkout/ch_abc?mode=popup&origin=${encodeURIComponent(MERCHANT)}`]);
    browser.post(message('ch_abc', 'failed'));
    await settle();
    expect(state.result).toEqual({ chargeId: 'ch_abc', status: 'failed' });
  });

  it('a promise that rejects (createCharge failed): the popup closes and the error comes through', async () => {
    const browser = fakeBrowser();
    const failure = new ChargeportError({ status: 422, code: 'unsupported_chain', message: 'no' });
    await expect(runPaySession(Promise.reject(failure), browser.env)).rejects.toBe(failure);
    expect(browser.popup.closed).toBe(true);
    expect(browser.isCleanedUp()).toBe(true);
  });

  it('cancel while the charge is still being created: dismissed once its id is known, and no navigation', async () => {
    const browser = fakeBrowser();
    let create!: (value: string) => void;
    const session = runPaySession(new Promise<string>((resolve) => (create = resolve)), browser.env, { baseUrl: CHECKOUT });
    browser.overlay().onCancel();
    expect(browser.isOverlayVisible()).toBe(false);
    create('ch_abc');
    await expect(session).resolves.toEqual({ chargeId: 'ch_abc', status: 'dismissed' });
    expect(browser.popup.navigations).toEqual([]);
  });

  it('something that is not a charge: a TypeError before any window opens', async () => {
    const browser = fakeBrowser();
    await expect(runPaySession('order-17', browser.env, { baseUrl: CHECKOUT })).rejects.toThrow(TypeError);
    await expect(runPaySession('ch_abc', browser.env)).rejects.toThrow(/baseUrl/);
    expect(browser.opened).toEqual([]);
  });
});
