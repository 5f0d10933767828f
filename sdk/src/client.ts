/**
 * The Chargeport web SDK client: the spec's `createCharge(parameters)` plus `getCharge(chargeId)`,
 * over the HTTP API with the global `fetch` (no runtime dependencies).
 *
 * Failures follow the spec's reading order: the `error` member of the answer first, then a status
 * other than 200; anything that is not the API's JSON envelope is `invalid_response`. Each kind of
 * failure is its own ChargeportError subclass (errors.ts).
 *
 * Every attempt has a timeout; GETs and POSTs with an Idempotency-Key (createCharge makes one unless
 * given) are retried on connection errors, timeouts, 429 (after Retry-After) and 5xx, with
 * exponential back-off and jitter (retry.ts).
 */
import { ChargeportError, type ApiErrorCode } from './errors.ts';
import { pay, type PayResult, type PayTarget } from './pay.ts';
import { SignInSession, type ChargeportUser, type SignInConfig, type WalletBalances } from './sign-in.ts';
import { isRetryable, isRetryableStatus, parseRetryAfter, retryDelayMs, sleep } from './retry.ts';
import type { Charge, CreateChargeParams, CreateChargeRequest, CreateChargeResult } from './types.ts';
import { sdkHeaders } from './version.ts';

/** The part of `fetch` the SDK uses; the global `fetch` fits, and so does any wrapper of it. */
export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

export interface ChargeportOptions {
  /**
   * In a browser: a publishable key (`cp_pub_test_…` / `cp_pub_live_…`), which can only create and
   * read charges. On a server: a secret key (`cp_test_…` / `cp_live_…`).
   */
  apiKey: string;
  /** Origin of the Chargeport API, e.g. `https://pay.example.com`; paths such as `/api/createCharge` are appended. */
  baseUrl: string;
  /** Replaces the global `fetch` (tests, proxies, instrumentation). */
  fetch?: FetchLike;
  /** Per attempt, in milliseconds, answer body included. Default 30 000. */
  timeoutMs?: number;
  /**
   * Retries after the first attempt, for GETs and for POSTs with an idempotency key, on connection
   * errors, timeouts, 429 and 5xx. Default 2; 0 turns retries off.
   */
  maxRetries?: number;
  /**
   * A secret key in a browser can redirect funds and read every charge, so the client refuses it
   * there. Set this only for a browser-like environment that is really a trusted server.
   */
  dangerouslyAllowSecretKeyInBrowser?: boolean;
  /**
   * "Sign in with Chargeport" (browser): your OAuth app's client id and a redirect URI of this origin
   * (dashboard → OAuth). Enables `signIn()`, `getUser()`, `getBalances()` and in-app `pay()`.
   */
  signIn?: SignInConfig;
}

export interface CreateChargeOptions {
  /**
   * Sent as `Idempotency-Key`: retrying with the same key and the same parameters returns the
   * same charge instead of creating another; the same key with other parameters fails with
   * `idempotency_conflict` (409). Use one key per purchase attempt, e.g. your order id. Without
   * one, the client makes a random key per call (where `crypto.randomUUID` exists), so its own
   * retries never create a second charge.
   */
  idempotencyKey?: string;
}

const SECRET_KEY_PATTERN = /^cp_(test|live)_/;
/** How much of an unexpected (non-JSON) body goes into the error message. */
const BODY_SNIPPET_LENGTH = 200;

export class Chargeport {
  readonly baseUrl: string;
  readonly #apiKey: string;
  readonly #fetch: FetchLike;
  readonly #timeoutMs: number;
  readonly #maxRetries: number;
  readonly #signIn: SignInSession | undefined;

  constructor(options: ChargeportOptions) {
    const url = new URL(options.baseUrl);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new TypeError('baseUrl must be an http(s) URL');
    this.baseUrl = url.href.replace(/\/+$/, '');
    this.#apiKey = options.apiKey;
    this.#timeoutMs = options.timeoutMs ?? 30_000;
    this.#maxRetries = options.maxRetries ?? 2;
    if (isBrowser() && SECRET_KEY_PATTERN.test(options.apiKey) && !options.dangerouslyAllowSecretKeyInBrowser) {
      throw new ChargeportError({
        status: 0,
        code: 'secret_key_in_browser',
        message:
          'A secret key (cp_test_… / cp_live_…) must never reach a browser. Use a publishable key (cp_pub_…) here, or create the charge on your server.',
      });
    }
    let baseFetch: FetchLike;
    if (options.fetch) {
      baseFetch = options.fetch;
    } else if (typeof globalThis.fetch === 'function') {
      // Bound: browsers reject `fetch` called with another `this` ("Illegal invocation").
      baseFetch = globalThis.fetch.bind(globalThis);
    } else {
      throw new TypeError('No global fetch in this environment: pass options.fetch');
    }
    // Every request, the sign-in ones included, says which SDK sent it.
    const identity = sdkHeaders(isBrowser());
    this.#fetch = (url, init) => baseFetch(url, { ...init, headers: { ...identity, ...(init.headers as Record<string, string>) } });
    this.#signIn = options.signIn ? new SignInSession(this.baseUrl, options.signIn, this.#fetch) : undefined;
  }

  /** Whether a user is signed in with Chargeport in this tab (see `signIn`). */
  get isSignedIn(): boolean {
    return this.#signIn?.isSignedIn ?? false;
  }

  /**
   * Signs the user in with their Chargeport account in a popup (authorization code + PKCE) and
   * resolves with the user. Call it in a click handler. Needs the `signIn` option.
   *
   * @throws {ChargeportError} `popup_blocked`, `sign_in_canceled` (closed, or consent refused), `sign_in_failed`.
   */
  signIn(): Promise<ChargeportUser> {
    return this.#signInSession().signIn();
  }

  /** Signs out of this app: the refresh token is revoked and the session forgotten. */
  signOut(): Promise<void> {
    return this.#signInSession().signOut();
  }

  /** The signed-in user (OpenID userinfo: `sub`, and `email` with the `email` scope). */
  getUser(): Promise<ChargeportUser> {
    return this.#signInSession().getUser();
  }

  /** The signed-in user's wallet addresses and balances per chain (`wallet:read` scope). */
  getBalances(): Promise<WalletBalances> {
    return this.#signInSession().getBalances();
  }

  #signInSession(): SignInSession {
    if (!this.#signIn) throw new TypeError('Pass the signIn option ({ clientId, redirectUri }) to use "Sign in with Chargeport"');
    return this.#signIn;
  }

  /**
   * Creates a charge and returns `{ chargeId, paymentUrl }`; send the buyer to `paymentUrl`.
   *
   * Takes either form of the spec: flat (`{ chain, symbol, tokenAddress, amount, items, … }`) or
   * nested (`{ chargeData, isTest?, isDirectTransfer? }`). Give amounts as decimal strings
   * (`'4.99'`) to keep them exact; numbers are accepted too.
   *
   * @throws {ChargeportError} on any failure.
   */
  async createCharge(params: CreateChargeParams, options: CreateChargeOptions = {}): Promise<CreateChargeResult> {
    const body: CreateChargeRequest = params.chargeData === undefined ? { chargeData: params } : params;
    const headers: Record<string, string> = {};
    const idempotencyKey = options.idempotencyKey ?? globalThis.crypto?.randomUUID?.();
    if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey;
    const data = await this.#request('POST', '/api/createCharge', { body, headers });
    if (!hasStringFields(data, ['chargeId', 'paymentUrl'])) throw malformedData(200, 'createCharge');
    return { chargeId: data.chargeId, paymentUrl: data.paymentUrl };
  }

  /**
   * Reads a charge of the key's merchant (and mode): status, amount, items, timeline.
   *
   * @throws {ChargeportError} `not_found` (404) for an unknown id or another merchant's charge.
   */
  async getCharge(chargeId: string): Promise<Charge> {
    const data = await this.#request('GET', `/api/charges/${encodeURIComponent(chargeId)}`, {});
    if (!hasStringFields(data, ['id'])) throw malformedData(200, 'getCharge');
    return data as Charge;
  }

  /**
   * When a user is signed in (`signIn`) with the `payments` scope, the charge is paid from their
   * Chargeport balance instead: a Chargeport popup shows what the charge buys and asks for the PIN
   * (never typed into this page), and the result is the charge's final status.
   *
   * Otherwise: opens the hosted checkout of a charge in a popup over this page and resolves with the outcome,
   * `{ chargeId, status }`; the page never navigates. Call it directly in the click handler; to
   * create the charge in the same click, pass the promise: `pay(chargeport.createCharge(params))`.
   *
   * When the buyer closes the window early, the client reads the charge (`getCharge`) and reports
   * its final status if it has one, else `dismissed`. Browser only. Confirm the payment on your
   * server (webhook, or `getCharge` with the secret key) before you deliver.
   *
   * @throws {ChargeportError} `popup_blocked` (fall back to `redirectToCheckout(paymentUrl)`),
   *   `payment_in_progress`, or the error of a `createCharge` promise passed in.
   */
  pay(target: PayTarget): Promise<PayResult> {
    // Signed in with the `payments` scope: pay from the user's balance, confirmed with the PIN in a Chargeport popup.
    if (this.#signIn?.isSignedIn && this.#signIn.hasScope('payments')) return this.#signIn.pay(target);
    return pay(target, { baseUrl: this.baseUrl, lookupStatus: async (chargeId) => (await this.getCharge(chargeId)).status });
  }

  async #request(
    method: 'GET' | 'POST',
    path: string,
    { body, headers = {} }: { body?: unknown; headers?: Record<string, string> },
  ): Promise<unknown> {
    const requestHeaders: Record<string, string> = { accept: 'application/json', ...headers };
    // No header at all for an empty key: the API answers missing_api_key, which says what to fix.
    if (this.#apiKey) requestHeaders['x-api-key'] = this.#apiKey;
    if (body !== undefined) requestHeaders['content-type'] = 'application/json';

    const retryable = isRetryable(method, requestHeaders);
    for (let attempt = 0; ; attempt++) {
      const canRetry = retryable && attempt < this.#maxRetries;
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), this.#timeoutMs);
      let response: Response | undefined;
      let text: string;
      try {
        response = await this.#fetch(`${this.baseUrl}${path}`, {
          method,
          headers: requestHeaders,
          signal: controller.signal,
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        text = await response.text();
      } catch (cause) {
        if (canRetry) {
          await sleep(retryDelayMs(undefined, attempt)!);
          continue;
        }
        const timedOut = controller.signal.aborted;
        throw ChargeportError.generate({
          status: response?.status ?? 0,
          code: timedOut ? 'timeout' : 'network_error',
          message: timedOut
            ? `No answer from Chargeport at ${this.baseUrl} within ${this.#timeoutMs} ms`
            : response
              ? `The answer from Chargeport was cut off: ${describe(cause)}`
              : `Could not reach Chargeport at ${this.baseUrl}: ${describe(cause)}`,
          ...(response ? { requestId: response.headers.get('x-request-id') ?? undefined } : {}),
          cause,
        });
      } finally {
        clearTimeout(timer);
      }
      if (canRetry && isRetryableStatus(response.status)) {
        const delay = retryDelayMs(parseRetryAfter(response.headers.get('retry-after')), attempt);
        if (delay !== undefined) {
          await sleep(delay);
          continue;
        }
      }
      return readEnvelope(response, text);
    }
  }
}

/** Shorthand for `new Chargeport(options)`. */
export function createClient(options: ChargeportOptions): Chargeport {
  return new Chargeport(options);
}

/**
 * Sends the browser to the hosted checkout returned by `createCharge`. Browser only; on a server,
 * return the `paymentUrl` to the browser (or answer with a redirect) instead.
 */
export function redirectToCheckout(paymentUrl: string): void {
  const url = new URL(paymentUrl);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new TypeError('paymentUrl must be an http(s) URL');
  if (!isBrowser()) throw new Error('redirectToCheckout only works in a browser; send the paymentUrl to the browser instead');
  window.location.assign(url.href);
}

/** The `{ data, error }` envelope → `data`, or a ChargeportError of the answer's kind. */
function readEnvelope(response: Response, text: string): unknown {
  const requestId = response.headers.get('x-request-id') ?? undefined;
  const retryAfter = parseRetryAfter(response.headers.get('retry-after'));
  const envelope = parseJsonObject(text);
  if (envelope && 'error' in envelope && envelope.error !== null) {
    const error = envelope.error;
    if (hasStringFields(error, ['code', 'message'])) {
      throw ChargeportError.generate({
        status: response.status,
        // The API's contract: error.code is one of its ErrorCode values.
        code: error.code as ApiErrorCode,
        message: error.message,
        ...(typeof error.param === 'string' ? { param: error.param } : {}),
        requestId,
        ...(retryAfter === undefined ? {} : { retryAfter }),
      });
    }
  } else if (envelope && 'data' in envelope && response.status === 200) {
    return envelope.data;
  }

  const contentType = response.headers.get('content-type') ?? 'no content type';
  const snippet = text.replace(/\s+/g, ' ').trim().slice(0, BODY_SNIPPET_LENGTH);
  throw ChargeportError.generate({
    status: response.status,
    code: 'invalid_response',
    message: `Expected the Chargeport API's JSON { data, error } answer, got HTTP ${response.status} (${contentType})${snippet ? `: ${snippet}` : ''}`,
    requestId,
  });
}

function parseJsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function hasStringFields<K extends string>(value: unknown, keys: K[]): value is Record<K, string> & Record<string, unknown> {
  return typeof value === 'object' && value !== null && keys.every((key) => typeof (value as Record<string, unknown>)[key] === 'string');
}

function malformedData(status: number, operation: string): ChargeportError {
  return ChargeportError.generate({
    status,
    code: 'invalid_response',
    message: `The ${operation} answer is missing fields the SDK expects`,
  });
}

function describe(cause: unknown): string {
  return cause instanceof Error ? cause.message : String(cause);
}

function isBrowser(): boolean {
  return typeof window !== 'undefined' && typeof document !== 'undefined';
}
