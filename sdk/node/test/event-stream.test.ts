/**
 * events.stream's reader on its own: server-sent events whose lines end in CRLF, LF or a lone CR (all
 * three are valid SSE), split across chunks anywhere, even between a CR and its LF; the request names
 * the SDK as every other request does.
 */
import { describe, expect, it } from 'vitest';
import { CURRENT_API_VERSION } from '@/lib/api/resolve-api-version';
import { Chargeport, VERSION, type FetchLike, type WebhookEvent } from '../src/index';

const event = (id: string) => JSON.stringify({ id, object: 'event', type: 'charge.created', data: { charge: { id: `ch_${id}` } } });

describe('events.stream', () => {
  it('reads events with CRLF, LF and CR line ends, split anywhere across chunks', async () => {
    const wire = `: keep-alive\r\n\r\nid: a\r\ndata: ${event('a')}\r\n\r\nid: b\ndata: ${event('b')}\n\nid: c\rdata: ${event('c')}\r\r`;
    // Cut after every CR among others, so a CRLF pair straddles two chunks.
    const chunks = wire
      .split(/(?<=\r)/)
      .flatMap((part) => [part.slice(0, 7), part.slice(7)])
      .filter(Boolean);
    const seenHeaders: Headers[] = [];
    const fetch: FetchLike = async (_url, init) => {
      seenHeaders.push(new Headers(init.headers));
      const encoder = new TextEncoder();
      return new Response(
        new ReadableStream({
          start(controller) {
            for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
            controller.close();
          },
        }),
        { headers: { 'content-type': 'text/event-stream' } },
      );
    };
    const controller = new AbortController();
    const chargeport = new Chargeport({ apiKey: 'cp_test_x', baseUrl: 'http://127.0.0.1:9', fetch });
    const ids: WebhookEvent['id'][] = [];
    for await (const received of chargeport.events.stream({ signal: controller.signal })) {
      ids.push(received.id);
      if (ids.length === 3) controller.abort();
    }
    expect(ids).toEqual(['a', 'b', 'c']);
    expect(seenHeaders[0]!.get('user-agent')).toBe(`chargeport-node/${VERSION} node/${process.versions.node}`);
    expect(seenHeaders[0]!.get('chargeport-client')).toBe(`node/${VERSION}`);
    expect(seenHeaders[0]!.get('chargeport-version')).toBe(CURRENT_API_VERSION);
  });
});
