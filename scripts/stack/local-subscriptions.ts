/**
 * The websocket side of the local Solana cluster (solana-cluster.ts), on its HTTP port: what @solana/kit's
 * sendAndConfirmTransactionFactory and wallets subscribe to — slotSubscribe, signatureSubscribe and
 * accountSubscribe, with their unsubscribes. Notifications go out when the clock moves to a new slot (every
 * 400 ms), and a signature already landed is notified at once. Other subscriptions (logs, program, root, block)
 * are answered "Method not found". A minimal RFC 6455 server: text frames, ping/pong and close, no extensions.
 */
import { createHash } from 'node:crypto';
import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { SolanaCluster } from './solana-cluster';

const WEBSOCKET_GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';

type Subscription =
  { kind: 'slot' } | { kind: 'signature'; signature: string } | { kind: 'account'; address: string; encoding: unknown; last: string };

const NOTIFICATIONS = { slot: 'slotNotification', signature: 'signatureNotification', account: 'accountNotification' } as const;

export function serveSubscriptions(server: Server, cluster: SolanaCluster): { close(): void } {
  const sockets = new Set<Duplex>();
  let nextId = 1;

  server.on('upgrade', (request, socket: Duplex) => {
    const key = request.headers['sec-websocket-key'];
    if (typeof key !== 'string' || request.headers.upgrade?.toLowerCase() !== 'websocket') {
      socket.end('HTTP/1.1 400 Bad Request\r\n\r\n');
      return;
    }
    const accept = createHash('sha1')
      .update(key + WEBSOCKET_GUID)
      .digest('base64');
    socket.write(
      `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`,
    );
    sockets.add(socket);
    const subscriptions = new Map<number, Subscription>();
    const send = (message: unknown) => {
      if (!socket.destroyed) socket.write(frame(0x1, Buffer.from(JSON.stringify(message))));
    };
    const notify = (id: number, result: unknown) =>
      send({ jsonrpc: '2.0', method: NOTIFICATIONS[subscriptions.get(id)!.kind], params: { result, subscription: id } });

    /** A landed signature is notified once, then the subscription ends (as on a node). */
    const checkSignature = (id: number, signature: string) => {
      const landed = cluster.ledger.sent.find((sent) => sent.signature === signature);
      if (!landed) return;
      notify(id, { context: { slot: landed.view.slot }, value: { err: landed.view.meta.err } });
      subscriptions.delete(id);
    };
    const accountState = (address: string, encoding: unknown) => JSON.stringify(cluster.accountJson(address, encoding));

    const onSlot = (slot: number) => {
      for (const [id, subscription] of subscriptions) {
        if (subscription.kind === 'slot') notify(id, { parent: slot - 1, root: slot, slot });
        else if (subscription.kind === 'signature') checkSignature(id, subscription.signature);
        else {
          const state = accountState(subscription.address, subscription.encoding);
          if (state === subscription.last) continue;
          subscription.last = state;
          notify(id, { context: { slot }, value: JSON.parse(state) });
        }
      }
    };
    cluster.onSlot.add(onSlot);

    const onMessage = (text: string) => {
      let request: { id?: unknown; method?: string; params?: unknown[] };
      try {
        request = JSON.parse(text);
      } catch {
        send({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
        return;
      }
      const params = request.params ?? [];
      const answer = (body: { result: unknown } | { error: { code: number; message: string } }) =>
        send({ jsonrpc: '2.0', id: request.id ?? null, ...body });
      const config = (params[1] ?? {}) as { encoding?: unknown };
      const subscribe = (subscription: Subscription) => {
        const id = nextId++;
        subscriptions.set(id, subscription);
        answer({ result: id });
        return id;
      };
      switch (request.method) {
        case 'slotSubscribe':
          subscribe({ kind: 'slot' });
          return;
        case 'signatureSubscribe': {
          const signature = String(params[0]);
          checkSignature(subscribe({ kind: 'signature', signature }), signature);
          return;
        }
        case 'accountSubscribe': {
          const address = String(params[0]);
          subscribe({ kind: 'account', address, encoding: config.encoding, last: accountState(address, config.encoding) });
          return;
        }
        case 'slotUnsubscribe':
        case 'signatureUnsubscribe':
        case 'accountUnsubscribe':
          answer({ result: subscriptions.delete(Number(params[0])) });
          return;
        default:
          answer({
            error: {
              code: -32601,
              message: `Method not found: ${request.method} (the local Solana cluster's subscriptions: slot, signature, account)`,
            },
          });
      }
    };

    let buffered = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      for (let parsed = parseFrame(buffered); parsed; parsed = parseFrame(buffered)) {
        buffered = buffered.subarray(parsed.length);
        if (parsed.opcode === 0x1) onMessage(parsed.payload.toString('utf8'));
        else if (parsed.opcode === 0x9) socket.write(frame(0xa, parsed.payload));
        else if (parsed.opcode === 0x8) {
          socket.end(frame(0x8, parsed.payload.subarray(0, 2)));
          return;
        }
      }
    });
    const gone = () => {
      cluster.onSlot.delete(onSlot);
      sockets.delete(socket);
    };
    socket.on('close', gone);
    socket.on('error', gone);
  });

  return {
    close: () => {
      for (const socket of sockets) socket.destroy();
    },
  };
}

/** One complete frame at the start of `buffer` (client frames are masked), or undefined until it has arrived. */
function parseFrame(buffer: Buffer): { opcode: number; payload: Buffer; length: number } | undefined {
  if (buffer.length < 2) return undefined;
  const opcode = buffer[0]! & 0x0f;
  const masked = (buffer[1]! & 0x80) !== 0;
  let length = buffer[1]! & 0x7f;
  let offset = 2;
  if (length === 126) {
    if (buffer.length < 4) return undefined;
    length = buffer.readUInt16BE(2);
    offset = 4;
  } else if (length === 127) {
    if (buffer.length < 10) return undefined;
    length = Number(buffer.readBigUInt64BE(2));
    offset = 10;
  }
  const maskOffset = offset;
  if (masked) offset += 4;
  if (buffer.length < offset + length) return undefined;
  const payload = Buffer.from(buffer.subarray(offset, offset + length));
  if (masked) for (let i = 0; i < payload.length; i++) payload[i] = payload[i]! ^ buffer[maskOffset + (i % 4)]!;
  return { opcode, payload, length: offset + length };
}

/** A final, unmasked server frame. */
function frame(opcode: number, payload: Buffer): Buffer {
  const header =
    payload.length < 126
      ? Buffer.from([0x80 | opcode, payload.length])
      : payload.length < 65_536
        ? Buffer.from([0x80 | opcode, 126, payload.length >> 8, payload.length & 0xff])
        : Buffer.concat([Buffer.from([0x80 | opcode, 127]), bigEndian64(payload.length)]);
  return Buffer.concat([header, payload]);
}

function bigEndian64(value: number): Buffer {
  const bytes = Buffer.alloc(8);
  bytes.writeBigUInt64BE(BigInt(value));
  return bytes;
}
