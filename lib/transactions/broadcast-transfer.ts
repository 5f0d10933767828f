/**
 * Step 2: send a recorded transfer's current attempt. Safe to repeat — the same signed bytes can be mined
 * only once — and safe to call from a request right after commit or from the reconciler after a crash.
 * A transfer that waits for its gas top-up is sent once the top-up is in a block.
 */
import { crashPoint } from '@/lib/crash-points';
import { and, eq, inArray } from 'drizzle-orm';
import type { Hex, PublicClient } from 'viem';
import { publicClientFor } from '@/lib/chains/clients';
import { CHAINS, type ChainName } from '@/lib/chains/registry';
import { getDb } from '@/lib/db/client';
import { outboundTransfers, type OutboundTransferRow } from '@/lib/db/schema';
import { log } from '@/lib/log';
import { broadcastSolanaTransfer } from '@/lib/transactions/solana/solana-transfers';
import { transferMachine } from '@/lib/transactions/state';
import { resolveSolanaRpc, type SolanaRpcOptions } from '@/lib/chains/solana-rpc';

/**
 * Why a send did not go through (N10). Only a node's definite refusal says the transaction can never be
 * sent as it is; only those count toward TRANSFER_CANCEL_AFTER_FAILURES:
 *  - `insufficient_funds`, `invalid` (bad signature or sender, intrinsic gas too low, over the block gas
 *    limit, wrong chain, a fee cap over the node's limit), and `other`: a JSON-RPC answer we do not know,
 *    which is still the node's answer.
 * Not refusals of the transaction:
 *  - `underpriced` (fee cap under the base fee, replacement underpriced): a fee bump, never a cancel;
 *  - `nonce_too_low`: its nonce is used — ours (a receipt settles it) or another's (the depth check does);
 *  - `transport`: no answer from a node's rules at all — a timeout, a refused or reset connection, HTTP
 *    408/425/429/5xx, JSON-RPC -32005 (limit exceeded), -32603 (internal error), -32002 (resource
 *    unavailable), 429 and -32007 (providers' rate limits), or a gateway saying the upstream is down. The
 *    reconciler backs off and keeps trying; it never cancels on these (reconcile-transfers.ts).
 */
export type SendFailure = 'nonce_too_low' | 'underpriced' | 'insufficient_funds' | 'invalid' | 'transport' | 'other';

const TRANSPORT_RPC_CODES = new Set([-32005, -32603, -32002, -32007, 429]);
const isTransportStatus = (status: number) => status === 408 || status === 425 || status === 429 || status >= 500;
const TRANSPORT_TEXT =
  /timed out|timeout|took too long|fetch failed|econnrefused|econnreset|etimedout|enotfound|socket hang up|network error|upstream|unavailable|rate limit|too many requests|limit exceeded|exceeded .*(capacity|limit|quota)|bad gateway|gateway time|header not found|internal error/;

/** What a send's error means for us. "Already known" is not a failure: the node has the transaction. */
export function classifySendError(error: unknown): SendFailure | 'known' {
  const text = errorText(error);
  if (/already known|already imported|known transaction|already exists/.test(text)) return 'known';
  const chain = errorChain(error);
  // No JSON-RPC answer at all: the request timed out, the connection failed, or the HTTP status says the provider did.
  if (
    chain.some(
      (e) => e.name === 'TimeoutError' || (e.name === 'HttpRequestError' && (e.status === undefined || isTransportStatus(e.status))),
    )
  )
    return 'transport';
  if (chain.some((e) => typeof e.status === 'number' && isTransportStatus(e.status))) return 'transport';
  if (/nonce too low|nonce has already been used|oldnonce/.test(text)) return 'nonce_too_low';
  if (/underpriced|less than block base fee|fee cap less than|max fee per gas less than|feecap too low|fee too low/.test(text))
    return 'underpriced';
  if (/insufficient funds/.test(text)) return 'insufficient_funds';
  if (
    /intrinsic gas too low|exceeds block gas limit|gas limit reached|gas limit too (high|low)|invalid (transaction|signature|sender|chain id)|invalid v|invalid rlp|rlp: |chain ?id|transaction type not supported|oversized data|exceeds the configured cap|tip higher than fee cap|max priority fee per gas higher than max fee per gas|fee cap higher than 2\^256|nonce too high|nonce max/.test(
      text,
    )
  )
    return 'invalid';
  if (chain.some((e) => typeof e.code === 'number' && TRANSPORT_RPC_CODES.has(e.code))) return 'transport';
  if (TRANSPORT_TEXT.test(text)) return 'transport';
  return 'other';
}

type ErrorLink = { name: string; status?: number; code?: number };

function errorChain(error: unknown): ErrorLink[] {
  const links: ErrorLink[] = [];
  let current: unknown = error;
  for (let depth = 0; current && depth < 6; depth++) {
    if (!(current instanceof Error)) break;
    const { status, code } = current as { status?: unknown; code?: unknown };
    links.push({
      name: current.name,
      status: typeof status === 'number' ? status : undefined,
      code: typeof code === 'number' ? code : undefined,
    });
    current = (current as { cause?: unknown }).cause;
  }
  return links;
}

/** A node's or viem's error in one line (viem's short message leaves out the request, which names the RPC URL). */
export function errorMessage(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const { shortMessage, details } = error as { shortMessage?: string; details?: unknown };
  if (!shortMessage) return error.message;
  return typeof details === 'string' && details && !shortMessage.includes(details) ? `${shortMessage} ${details}` : shortMessage;
}

function errorText(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current && depth < 6; depth++) {
    if (current instanceof Error) {
      parts.push(current.message);
      const details = (current as { details?: unknown }).details;
      if (typeof details === 'string') parts.push(details);
      current = (current as { cause?: unknown }).cause;
    } else {
      parts.push(String(current));
      break;
    }
  }
  return parts.join(' | ').toLowerCase();
}

export type BroadcastOutcome =
  | { kind: 'sent' }
  | { kind: 'waiting_for_funds' }
  | { kind: 'not_signed'; status: OutboundTransferRow['status'] }
  | { kind: 'refused'; reason: Exclude<SendFailure, 'transport'>; message: string }
  | { kind: 'transport_error'; message: string; failures: number; failingSince: Date }
  | { kind: 'unreachable' };

/** Sends `transferId`'s current attempt if it is `signed`. */
export async function broadcastTransfer(transferId: string, options: SolanaRpcOptions = {}): Promise<BroadcastOutcome> {
  const [transfer] = await getDb().select().from(outboundTransfers).where(eq(outboundTransfers.id, transferId));
  if (!transfer) return { kind: 'not_signed', status: 'failed' };
  if (transfer.status !== 'signed') return { kind: 'not_signed', status: transfer.status };
  if (CHAINS[transfer.chain as ChainName].family === 'solana') {
    const rpc = resolveSolanaRpc(transfer.chain as ChainName, options);
    if (!rpc) return { kind: 'unreachable' };
    return (await broadcastSolanaTransfer(rpc, transfer)) ? { kind: 'sent' } : { kind: 'unreachable' };
  }
  const client = publicClientFor(transfer.chain as ChainName);
  if (!client) return { kind: 'unreachable' };
  for (const dependency of transfer.dependsOnTransferIds) {
    if (!(await dependencyLanded(client, dependency))) return { kind: 'waiting_for_funds' };
  }
  return sendCurrentAttempt(client, transfer);
}

/** Sends the row's current bytes and records the outcome (status `broadcast` once a node has them). */
export async function sendCurrentAttempt(client: PublicClient, transfer: OutboundTransferRow): Promise<BroadcastOutcome> {
  try {
    await client.sendRawTransaction({ serializedTransaction: transfer.rawTransaction as Hex });
    crashPoint('transfer.sent');
  } catch (error) {
    const reason = classifySendError(error);
    if (reason === 'transport') {
      // No node said no: count it apart, for the back-off and the time budget, never toward a cancel.
      const message = errorMessage(error);
      const failingSince = transfer.transportFailingSince ?? new Date();
      const failures = transfer.transportFailures + 1;
      await getDb()
        .update(outboundTransfers)
        .set({ transportFailures: failures, transportFailingSince: failingSince, error: `transport: ${message}`.slice(0, 500) })
        .where(eq(outboundTransfers.id, transfer.id));
      log.warn('no node answered the send; the reconciler retries with back-off', { transferId: transfer.id, failures, error: message });
      return { kind: 'transport_error', message, failures, failingSince };
    }
    if (reason !== 'known') {
      const message = errorMessage(error);
      await getDb()
        .update(outboundTransfers)
        .set({ broadcastFailures: transfer.broadcastFailures + 1, error: `${reason}: ${message}`.slice(0, 500) })
        .where(eq(outboundTransfers.id, transfer.id));
      log.warn('transfer refused by the node; the reconciler retries', { transferId: transfer.id, reason, error: message });
      return { kind: 'refused', reason, message };
    }
  }
  await getDb()
    .update(outboundTransfers)
    .set({
      status: 'broadcast',
      lastBroadcastAt: new Date(),
      broadcastFailures: 0,
      transportFailures: 0,
      transportFailingSince: null,
      error: null,
    })
    // Only a signed one: an included transfer goes back to broadcast only through the reconciler (a re-org).
    .where(and(eq(outboundTransfers.id, transfer.id), inArray(outboundTransfers.status, transferMachine.from(['signed'], 'broadcast'))));
  return { kind: 'sent' };
}

/** Whether a transfer another waits for (its gas top-up, a sweep bringing the funds) is in a block (recorded as such, or visible on the chain already). */
async function dependencyLanded(client: PublicClient, dependencyId: string): Promise<boolean> {
  const [dependency] = await getDb().select().from(outboundTransfers).where(eq(outboundTransfers.id, dependencyId));
  if (!dependency) return true;
  if (dependency.status === 'included' || dependency.status === 'confirmed') return true;
  if (dependency.status === 'failed') return true; // Nothing more will come: try, and let a refusal take its course.
  const receipt = await client.getTransactionReceipt({ hash: dependency.txHash as Hex }).catch(() => null);
  return receipt?.status === 'success';
}

/**
 * After the recording transaction commits: send the gas top-up, wait (a request: up to 20 s; a background
 * job: not at all) for its block, then the transfer. If the top-up is slow, the transfer stays `signed`
 * and the reconciler sends it once the top-up lands.
 */
export async function submitTransfer(
  recorded: { transfer: { id: string }; gasTopUp?: { id: string; txHash: string; chain: string } },
  options: { waitForGasMs?: number } & SolanaRpcOptions = {},
): Promise<void> {
  crashPoint('transfer.recorded');
  const waitMs = options.waitForGasMs ?? 20_000;
  if (recorded.gasTopUp) {
    const outcome = await broadcastTransfer(recorded.gasTopUp.id);
    const client = publicClientFor(recorded.gasTopUp.chain as ChainName);
    if (outcome.kind === 'sent' && client && waitMs > 0) {
      await client.waitForTransactionReceipt({ hash: recorded.gasTopUp.txHash as Hex, timeout: waitMs }).catch((error: unknown) => {
        log.warn('gas top-up not mined yet; the reconciler sends the transfer once it is', { error: errorMessage(error) });
      });
    }
  }
  await broadcastTransfer(recorded.transfer.id, options);
}
