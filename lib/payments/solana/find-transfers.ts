/**
 * Finds the Solana Pay transfers that name a reference key: the validator indexes every account key
 * of a transaction, so getSignaturesForAddress(reference) lists the candidate transactions (newest
 * first); each one is fetched with getTransaction and checked by validateSolanaPayTransfer.
 *
 * The same search finds plain transfers (no reference, as a copy-paste send makes) when it lists the
 * account that receives instead (`listAddress`: the recipient wallet for SOL, its token account for a
 * token) and no reference is required.
 *
 * Anyone can put any key in a transaction, so a listed transaction proves nothing until validated:
 * transactions that fail validation are returned in `rejected` (a payment in the wrong token shows
 * up there, which support wants to see), never as transfers.
 */
import {
  address,
  signature as toSignature,
  type GetSignaturesForAddressApi,
  type GetTransactionApi,
  type Rpc,
  type Signature,
} from '@solana/kit';
import { validateSolanaPayTransfer, type ValidateTransferFailure } from './validate-transfer';

/** The RPC's maximum page. */
const MAX_PAGE_SIZE = 1000;
/** Signatures examined per call at most: a reference anyone can spam must not make a poll unbounded. */
const DEFAULT_MAX_SIGNATURES = 1000;

type SolanaFinality = 'confirmed' | 'finalized';

export interface FindReferencedTransfersInput {
  /** The Solana Pay reference every transfer must carry; omitted for plain transfers (then `listAddress` is required). */
  reference?: string;
  /** Whose signatures are listed; default the reference. */
  listAddress?: string;
  recipient: string;
  /** Mint of the token requested; omitted for native SOL. */
  splToken?: string;
  /** The lowest commitment a transaction must have reached to be listed and fetched. */
  commitment: SolanaFinality;
  /** Stop at this signature (exclusive): the newest one a previous call fully handled. */
  untilSignature?: string;
  /** Signatures per getSignaturesForAddress page (1–1000). */
  pageSize?: number;
  maxSignatures?: number;
}

interface FoundSolanaTransfer {
  signature: string;
  slot: bigint;
  blockTime: bigint | null;
  /** Base units received by the recipient; compare with the amount due. */
  received: bigint;
  payer: string;
  /** 'confirmed' can still (rarely) be rolled back; only 'finalized' cannot. */
  confirmationStatus: SolanaFinality;
}

export interface FindReferencedTransfersResult {
  /** Valid transfers, newest first. */
  transfers: FoundSolanaTransfer[];
  /** Listed transactions that are not a valid transfer; 'not_found' when getTransaction had nothing (yet) at this commitment. */
  rejected: { signature: string; reason: ValidateTransferFailure | 'not_found' }[];
  /**
   * The newest signature listed, the `untilSignature` of the next call. Use it as a durable cursor
   * only from a 'finalized' search: a 'confirmed' one would skip re-reading the later finalization,
   * and a 'not_found' transaction behind the cursor would never be read again.
   */
  newestSignature: string | undefined;
  /** False when maxSignatures stopped the search before `untilSignature` or the oldest signature. */
  isComplete: boolean;
  /**
   * A durable cursor even from a 'confirmed' search: the newest signature such that it and every older
   * one listed (back to `untilSignature`) is finalized and settled for good (a valid transfer, or a
   * rejection other than 'not_found'). Undefined when the oldest listed one is not, or the search was cut.
   */
  finalizedThrough: string | undefined;
}

export type ReferencedTransfersRpc = Rpc<GetSignaturesForAddressApi & GetTransactionApi>;

export async function findReferencedTransfers(
  rpc: ReferencedTransfersRpc,
  input: FindReferencedTransfersInput,
  options: { abortSignal?: AbortSignal } = {},
): Promise<FindReferencedTransfersResult> {
  const pageSize = input.pageSize ?? MAX_PAGE_SIZE;
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > MAX_PAGE_SIZE) throw new Error(`Invalid page size: ${pageSize}.`);
  const maxSignatures = input.maxSignatures ?? DEFAULT_MAX_SIGNATURES;
  const listed = input.listAddress ?? input.reference;
  if (listed === undefined) throw new Error('findReferencedTransfers needs a reference or a listAddress.');
  const listedAddress = address(listed);
  const references = input.reference === undefined ? [] : [input.reference];
  const until = input.untilSignature === undefined ? undefined : toSignature(input.untilSignature);

  const result: FindReferencedTransfersResult = {
    transfers: [],
    rejected: [],
    newestSignature: undefined,
    isComplete: true,
    finalizedThrough: undefined,
  };
  const seen = new Set<string>();
  /** Newest first: whether each listed signature is finalized and settled for good. */
  const settled: { signature: string; isFinal: boolean }[] = [];
  let before: Signature | undefined;
  for (;;) {
    const page = await rpc
      .getSignaturesForAddress(listedAddress, {
        commitment: input.commitment,
        limit: pageSize,
        ...(before ? { before } : {}),
        ...(until ? { until } : {}),
      })
      .send({ abortSignal: options.abortSignal });
    // `until` is exclusive on the node; cut there too, in case a node ignores it.
    const cut = until ? page.findIndex((entry) => entry.signature === until) : -1;
    const entries = cut === -1 ? page : page.slice(0, cut);

    for (const entry of entries) {
      if (seen.has(entry.signature)) continue;
      if (seen.size >= maxSignatures) {
        result.isComplete = false;
        return result;
      }
      seen.add(entry.signature);
      result.newestSignature ??= entry.signature;
      const isFinalized = entry.confirmationStatus === 'finalized' || input.commitment === 'finalized';
      // A failed transaction is listed with its error: no need to fetch it.
      if (entry.err !== null) {
        result.rejected.push({ signature: entry.signature, reason: 'transaction_failed' });
        settled.push({ signature: entry.signature, isFinal: isFinalized });
        continue;
      }
      const tx = await rpc
        .getTransaction(entry.signature, { commitment: input.commitment, encoding: 'json', maxSupportedTransactionVersion: 0 })
        .send({ abortSignal: options.abortSignal });
      if (!tx) {
        result.rejected.push({ signature: entry.signature, reason: 'not_found' });
        settled.push({ signature: entry.signature, isFinal: false });
        continue;
      }
      settled.push({ signature: entry.signature, isFinal: isFinalized });
      const validated = validateSolanaPayTransfer(tx, {
        recipient: input.recipient,
        references,
        ...(input.splToken === undefined ? {} : { splToken: input.splToken }),
      });
      if (!validated.ok) {
        result.rejected.push({ signature: entry.signature, reason: validated.reason });
        continue;
      }
      result.transfers.push({
        signature: validated.signature,
        slot: validated.slot,
        blockTime: validated.blockTime,
        received: validated.received,
        payer: validated.payer,
        // Listed at `commitment` or higher; a missing status is treated as the lower of the two.
        confirmationStatus: isFinalized ? 'finalized' : 'confirmed',
      });
    }
    const last = page[page.length - 1];
    if (cut !== -1 || page.length < pageSize || !last) {
      result.finalizedThrough = finalizedPrefixEnd(settled);
      return result;
    }
    before = last.signature;
  }
}

/** From the oldest listed signature up: the last one before the first that is not final. */
function finalizedPrefixEnd(newestFirst: readonly { signature: string; isFinal: boolean }[]): string | undefined {
  let through: string | undefined;
  for (let i = newestFirst.length - 1; i >= 0; i--) {
    const entry = newestFirst[i]!;
    if (!entry.isFinal) break;
    through = entry.signature;
  }
  return through;
}
