/**
 * The Chargeport server SDK. Every POST carries an Idempotency-Key (generated unless given) that its
 * retries reuse, so a retried create never makes a second charge, refund or endpoint. Retries (only of
 * requests safe to repeat: idempotent methods, or an Idempotency-Key): network errors, timeouts, 429
 * (after Retry-After) and 5xx, with exponential back-off and jitter. Every request says which SDK sent
 * it (User-Agent, Chargeport-Client). Parameters are the generated OpenAPI types, with `chain` narrowed
 * to the chains the API knows.
 */
import { randomUUID } from 'node:crypto';
import type { ChainName } from './chain.ts';
import { AuthenticationError, ChargeportError, type ErrorCode } from './errors.ts';
import type { components, operations } from './generated/openapi.ts';
import { isRetryable, isRetryableStatus, parseRetryAfter, retryDelayMs, sleep } from './retry.ts';
import { SDK_HEADERS } from './version.ts';
import { constructEvent, signWebhook, type WebhookEvent } from './webhooks.ts';

type Schemas = components['schemas'];
/** What a charge is for; `chain` is one of the API's chain names (a misspelt chain fails to compile). */
export type ChargeData = Omit<Schemas['ChargeData'], 'chain'> & { chain: ChainName };
/** The createCharge body: `{ chargeData, isTest?, isDirectTransfer? }`. */
export type CreateChargeRequest = Omit<Schemas['CreateChargeRequest'], 'chargeData'> & { chargeData: ChargeData };
/** Either form: nested (the body) or flat (the charge fields at the top level; the key decides test or live). */
export type CreateChargeParams = CreateChargeRequest | (ChargeData & { chargeData?: never });
/** Filters of `charges.list` / `listPage` (`status`, `mode`, `created_gte`, `limit`, …), from the OpenAPI document. */
export type ListChargesQuery = NonNullable<operations['listCharges']['parameters']['query']>;
/** Filters of `events.list` / `listPage` (`type`, `created_gte`, `limit`, …), from the OpenAPI document. */
export type ListEventsQuery = NonNullable<operations['listEvents']['parameters']['query']>;
export type Charge = Schemas['Charge'];
export type Refund = Schemas['Refund'];
/** A refund just made: with `claimUrl` (given only here) when the payer must claim it. */
export type CreatedRefund = Schemas['CreatedRefund'];
export type WebhookEndpoint = Schemas['WebhookEndpoint'];
export type WebhookEndpointWithSecret = Schemas['WebhookEndpointWithSecret'];
export type StoredWebhookEvent = Schemas['WebhookEvent'];

export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

export interface ChargeportOptions {
  /** A secret key: `cp_test_…` or `cp_live_…`. */
  apiKey: string;
  /** Default `https://api.chargeport.example`; your deployment's URL. */
  baseUrl?: string;
  /** Per attempt, in milliseconds. Default 30 000. */
  timeoutMs?: number;
  /** Retries after the first attempt (of requests safe to repeat). Default 2; 0 turns retries off. */
  maxRetries?: number;
  /** Default global fetch. */
  fetch?: FetchLike;
}

export interface RequestOptions {
  /** Replaces the generated Idempotency-Key of a POST (use your own id to dedupe across processes). */
  idempotencyKey?: string;
}

type Query = Readonly<Record<string, string | number | boolean | undefined>>;

export interface StreamOptions {
  signal?: AbortSignal;
  /** Only these event types (e.g. `['charge.succeeded']`); default all. */
  types?: readonly WebhookEvent['type'][];
  /** Resume after this event id; default: events from now on. */
  startingAfter?: string;
}

export class Chargeport {
  readonly charges;
  readonly refunds;
  readonly webhookEndpoints;
  readonly events;
  readonly testHelpers;
  readonly webhooks = { constructEvent, signWebhook };
  readonly #apiKey: string;
  readonly #baseUrl: string;
  readonly #timeoutMs: number;
  readonly #maxRetries: number;
  readonly #fetch: FetchLike;

  constructor(options: ChargeportOptions) {
    if (!options.apiKey)
      throw new AuthenticationError({ status: 0, code: 'missing_api_key', message: 'apiKey is required (cp_test_… or cp_live_…).' });
    this.#apiKey = options.apiKey;
    this.#baseUrl = (options.baseUrl ?? 'https://api.chargeport.example').replace(/\/+$/, '');
    this.#timeoutMs = options.timeoutMs ?? 30_000;
    this.#maxRetries = options.maxRetries ?? 2;
    this.#fetch = options.fetch ?? ((url, init) => fetch(url, init));
    const id = encodeURIComponent;
    this.charges = {
      /** Nested (`{ chargeData, isTest? }`) or flat (`{ chain, symbol, … }`); resolves to `{ chargeId, paymentUrl }`. */
      create: (params: CreateChargeParams, options?: RequestOptions) =>
        this.request<Schemas['CreateChargeResult']>('POST', '/api/createCharge', {
          body: params.chargeData === undefined ? { chargeData: params } : params,
          ...options,
        }),
      retrieve: (chargeId: string) => this.request<Charge>('GET', `/api/charges/${id(chargeId)}`),
      /** Every charge matching `query` (`status`, `mode`, `created_gte`, …), newest first, fetching page after page: `for await`. */
      list: (query: ListChargesQuery = {}) => this.#paginate<Charge>('/api/charges', query),
      /** One page (`limit`, `starting_after`, …). */
      listPage: (query: ListChargesQuery = {}) => this.request<Schemas['ChargeList']>('GET', '/api/charges', { query }),
      cancel: (chargeId: string, options?: RequestOptions) =>
        this.request<Charge>('POST', `/api/charges/${id(chargeId)}/cancel`, { body: {}, ...options }),
    };
    this.refunds = {
      create: (chargeId: string, body: Schemas['CreateRefundRequest'] = {}, options?: RequestOptions) =>
        this.request<CreatedRefund>('POST', `/api/charges/${id(chargeId)}/refunds`, { body, ...options }),
      list: (chargeId: string) => this.request<Schemas['RefundList']>('GET', `/api/charges/${id(chargeId)}/refunds`),
    };
    this.webhookEndpoints = {
      create: (body: Schemas['CreateWebhookEndpointRequest'], options?: RequestOptions) =>
        this.request<WebhookEndpointWithSecret>('POST', '/api/webhook-endpoints', { body, ...options }),
      retrieve: (endpointId: string) => this.request<WebhookEndpoint>('GET', `/api/webhook-endpoints/${id(endpointId)}`),
      list: () => this.request<Schemas['WebhookEndpointList']>('GET', '/api/webhook-endpoints'),
      update: (endpointId: string, body: Schemas['UpdateWebhookEndpointRequest']) =>
        this.request<WebhookEndpoint>('PATCH', `/api/webhook-endpoints/${id(endpointId)}`, { body }),
      delete: (endpointId: string) => this.request<Schemas['DeletedWebhookEndpoint']>('DELETE', `/api/webhook-endpoints/${id(endpointId)}`),
      rotateSecret: (endpointId: string, body: Schemas['RotateWebhookSecretRequest'] = {}, options?: RequestOptions) =>
        this.request<WebhookEndpointWithSecret>('POST', `/api/webhook-endpoints/${id(endpointId)}/rotate-secret`, { body, ...options }),
    };
    this.events = {
      /** Every stored event matching `query` (`type`, `created_gte`, …), newest first, page after page: `for await`. */
      list: (query: ListEventsQuery = {}) => this.#paginate<StoredWebhookEvent>('/api/events', query),
      listPage: (query: ListEventsQuery = {}) => this.request<Schemas['WebhookEventList']>('GET', '/api/events', { query }),
      /**
       * The key's events live (GET /api/events/stream, server-sent events) from now on, or after
       * `startingAfter`; only `types` if given. Reconnects after the last id until `signal` aborts.
       */
      stream: (options: StreamOptions = {}) => this.#stream(options),
    };
    this.testHelpers = {
      /** Test keys only: the server pays the test charge on its test network (POST /api/test_helpers/…/pay). */
      payCharge: (chargeId: string, body: Schemas['PayTestChargeRequest'] = {}, options?: RequestOptions) =>
        this.request<Schemas['TestPayment']>('POST', `/api/test_helpers/charges/${id(chargeId)}/pay`, { body, ...options }),
    };
  }

  async *#stream(options: StreamOptions): AsyncGenerator<WebhookEvent> {
    let lastId = options.startingAfter;
    while (!options.signal?.aborted) {
      const url = new URL(`${this.#baseUrl}/api/events/stream`);
      if (options.types?.length) url.searchParams.set('type', options.types.join(','));
      if (lastId) url.searchParams.set('starting_after', lastId);
      let response: Response;
      try {
        response = await this.#fetch(url.toString(), {
          headers: { ...SDK_HEADERS, 'x-api-key': this.#apiKey, accept: 'text/event-stream' },
          ...(options.signal ? { signal: options.signal } : {}),
        });
      } catch (cause) {
        if (options.signal?.aborted) return;
        throw ChargeportError.generate({ status: 0, code: 'network_error', message: `Could not reach ${url.origin}.`, cause });
      }
      if (!response.ok || !response.body) {
        const envelope = (await response.json().catch(() => null)) as { error?: { code: ErrorCode; message: string } } | null;
        const requestId = response.headers.get('x-request-id') ?? undefined;
        throw ChargeportError.generate({
          status: response.status,
          code: envelope?.error?.code ?? 'invalid_response',
          message: envelope?.error?.message ?? `The event stream answered HTTP ${response.status}.`,
          ...(requestId ? { requestId } : {}),
        });
      }
      const decoder = new TextDecoder();
      let buffer = '';
      // SSE lines may end in CRLF, LF or CR: all become LF. A CR at a chunk's end waits for the next
      // chunk, which may start with its LF.
      let heldCr = false;
      try {
        const reader = response.body.getReader();
        for (let done = false; !done;) {
          const read = await reader.read();
          done = read.done;
          // At the end, a held CR ends its line.
          let text: string = (heldCr ? '\r' : '') + (done ? '' : decoder.decode(read.value, { stream: true }));
          heldCr = !done && text.endsWith('\r');
          if (heldCr) text = text.slice(0, -1);
          buffer += text.replace(/\r\n?/g, '\n');
          let end: number;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const message = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const data = message
              .split('\n')
              .filter((line) => line.startsWith('data:'))
              .map((line) => line.slice(5).trimStart())
              .join('\n');
            if (!data) continue;
            const event = JSON.parse(data) as WebhookEvent;
            lastId = event.id;
            yield event;
          }
        }
      } catch (cause) {
        if (options.signal?.aborted) return;
        throw ChargeportError.generate({ status: 0, code: 'network_error', message: 'The event stream broke off.', cause });
      }
    }
  }

  async *#paginate<T extends { id: string }>(path: string, query: Query): AsyncGenerator<T> {
    let after: string | undefined;
    for (;;) {
      const page = await this.request<{ data: T[]; has_more: boolean }>('GET', path, { query: { ...query, starting_after: after } });
      yield* page.data;
      const last = page.data.at(-1);
      if (!page.has_more || !last) return;
      after = last.id;
    }
  }

  /** One API call: the envelope's `data`, or a ChargeportError of the answer's kind. */
  async request<T>(method: string, path: string, options: { body?: unknown; query?: Query; idempotencyKey?: string } = {}): Promise<T> {
    const url = new URL(this.#baseUrl + path);
    for (const [name, value] of Object.entries(options.query ?? {})) if (value !== undefined) url.searchParams.set(name, String(value));
    const headers: Record<string, string> = { ...SDK_HEADERS, 'x-api-key': this.#apiKey, accept: 'application/json' };
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    if (method === 'POST') headers['idempotency-key'] = options.idempotencyKey ?? randomUUID();
    const body = options.body === undefined ? undefined : JSON.stringify(options.body);
    const retryable = isRetryable(method, headers);

    for (let attempt = 0; ; attempt++) {
      const canRetry = retryable && attempt < this.#maxRetries;
      let response: Response;
      try {
        response = await this.#fetch(url.toString(), { method, headers, body, signal: AbortSignal.timeout(this.#timeoutMs) });
      } catch (cause) {
        const timedOut = cause instanceof Error && (cause.name === 'TimeoutError' || cause.name === 'AbortError');
        if (canRetry) {
          await sleep(retryDelayMs(undefined, attempt)!);
          continue;
        }
        throw ChargeportError.generate({
          status: 0,
          code: timedOut ? 'timeout' : 'network_error',
          message: timedOut ? `No answer from ${url.origin} within ${this.#timeoutMs} ms.` : `Could not reach ${url.origin}.`,
          cause,
        });
      }
      const requestId = response.headers.get('x-request-id') ?? undefined;
      const retryAfter = parseRetryAfter(response.headers.get('retry-after'));
      if (canRetry && isRetryableStatus(response.status)) {
        const delay = retryDelayMs(retryAfter, attempt);
        if (delay !== undefined) {
          await response.body?.cancel().catch(() => undefined);
          await sleep(delay);
          continue;
        }
      }
      let envelope: { data: T | null; error: { code: ErrorCode; message: string; param?: string } | null };
      try {
        envelope = (await response.json()) as typeof envelope;
      } catch (cause) {
        throw ChargeportError.generate({
          status: response.status,
          code: 'invalid_response',
          message: `The answer (HTTP ${response.status}) is not the API's JSON.`,
          requestId,
          cause,
        });
      }
      if (envelope.error) {
        throw ChargeportError.generate({
          status: response.status,
          requestId,
          ...(retryAfter === undefined ? {} : { retryAfter }),
          ...envelope.error,
        });
      }
      if (!response.ok || envelope.data === null || envelope.data === undefined) {
        throw ChargeportError.generate({
          status: response.status,
          code: 'invalid_response',
          message: `Unexpected answer (HTTP ${response.status}).`,
          requestId,
        });
      }
      return envelope.data;
    }
  }
}
