/**
 * The open checkout's status as server-sent events (GET /api/checkout/{chargeId}/events): the status
 * (the same public view as the status route, ./checkout-status.ts) on connect and on every change
 * (./follow-checkout-status.ts), a comment every 15 s so proxies keep the connection, and the stream
 * ends after a final status. A client IP holds at most CHECKOUT_STREAMS_PER_IP streams per server
 * process; past that the answer is rate_limited and the checkout polls instead.
 */
import { env } from '@/lib/env';
import { AppError } from '@/lib/errors';
import type { CheckoutStatus } from './checkout-status';
import { followCheckoutStatus } from './follow-checkout-status';

const HEARTBEAT_MS = 15_000;
const FINAL_STATUSES: readonly string[] = ['succeeded', 'failed', 'expired', 'canceled'];

const globalForStreams = globalThis as unknown as { __chargeportCheckoutStreamsByIp?: Map<string, number> };
const streamsByIp = (globalForStreams.__chargeportCheckoutStreamsByIp ??= new Map());

export function openCheckoutEventStream(options: {
  initial: CheckoutStatus;
  /** The client's IP (null when unknown: such clients share one allowance). */
  clientIp: string | null;
  /**
   * The request: the stream ends when the client goes away (its signal aborts). Held for the stream's whole life:
   * a Request that is garbage-collected stops passing its caller's abort on to its signal (undici).
   */
  request: Request;
  heartbeatMs?: number;
}): ReadableStream<Uint8Array> {
  const ip = options.clientIp ?? 'unknown';
  const open = streamsByIp.get(ip) ?? 0;
  const cap = env().CHECKOUT_STREAMS_PER_IP;
  if (open >= cap) {
    throw new AppError('rate_limited', `At most ${cap} open checkout streams per client; poll the status route instead.`, {
      headers: { 'retry-after': '60' },
    });
  }
  streamsByIp.set(ip, open + 1);

  const encoder = new TextEncoder();
  let release = () => {};
  return new ReadableStream<Uint8Array>({
    start(controller) {
      let closed = false;
      let unfollow = () => {};
      release = () => {
        if (closed) return;
        closed = true;
        clearInterval(heartbeat);
        unfollow();
        options.request.signal.removeEventListener('abort', release);
        const left = (streamsByIp.get(ip) ?? 1) - 1;
        if (left > 0) streamsByIp.set(ip, left);
        else streamsByIp.delete(ip);
        try {
          controller.close();
        } catch {
          // already closed by the client
        }
      };
      const write = (text: string) => {
        if (closed) return;
        try {
          controller.enqueue(encoder.encode(text));
        } catch {
          release();
        }
      };
      // `retry`: how long EventSource waits before reconnecting after a drop.
      write('retry: 3000\n\n');
      const heartbeat = setInterval(() => write(': heartbeat\n\n'), options.heartbeatMs ?? HEARTBEAT_MS);
      heartbeat.unref();
      const send = (status: CheckoutStatus) => {
        write(`data: ${JSON.stringify(status)}\n\n`);
        if (FINAL_STATUSES.includes(status.status)) release();
      };
      if (FINAL_STATUSES.includes(options.initial.status)) return send(options.initial);
      unfollow = followCheckoutStatus(options.initial.chargeId, send, options.initial);
      if (options.request.signal.aborted) release();
      else options.request.signal.addEventListener('abort', release);
    },
    cancel() {
      release();
    },
  });
}
