/**
 * One sender wallet on one chain, as the engine sees it under that sender's lock: the nonce allocator
 * and what its transfers already have in flight. Every spend path goes through here (record-transfer.ts),
 * so two spends can never take one nonce or spend one balance twice.
 */
import { and, desc, eq, gt, inArray, isNull, notInArray, or, sql, type SQL } from 'drizzle-orm';
import { getAddress, parseTransaction, type Address, type Hex } from 'viem';
import type { ChainName } from '@/lib/chains/registry';
import type { DbOrTx } from '@/lib/db/client';
import { outboundTransfers } from '@/lib/db/schema';
import { IN_FLIGHT_STATUSES } from './state';

/**
 * Takes the sender's lock until the caller's transaction ends: one signer per wallet and chain at a time,
 * across processes. (The key is the one the earlier per-path code used, so mixed versions still exclude.)
 */
export async function lockSender(tx: DbOrTx, chain: ChainName, from: Address): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`wallet-nonce:${chain}:${from}`}, 0))`);
}

export interface InFlight {
  /** Per token (lower-case address): value signed or broadcast but not yet in a block (or, against balances of a block, in a later one). */
  valueOut: Map<string, bigint>;
  /** Native coin those transfers may still take: their native value plus gas limit × max fee. */
  nativeOut: bigint;
  /** Per token (lower-case address): value on its way to this wallet from our own transfers (gas top-ups, sweeps), not yet in the balances read. */
  valueIn: Map<string, bigint>;
  /** Those incoming transfers, per token: a spend that counts on them must wait for them. */
  incomingIds: Map<string, string[]>;
  /** The highest nonce ever recorded for the sender's own transactions (sent or relayed by it), or -1. Every recorded nonce is used or will be:
   *  a transfer fails only once its nonce is consumed, so the next nonce is always above all of them. A transaction to
   *  the sender itself carrying an authorization (the gas tank delegating itself in its first pull, ADR 0035) uses
   *  two: the authorization, signed by the sender, takes nonce + 1; it counts as that. */
  maxNonce: number;
  /** Relayed transfers of this account's value in flight (each takes the next EntryPoint nonce). */
  relayedOut: number;
  /**
   * Those relayed transfers, and relayed ones of the account in a block after the balances were read: a new
   * relayed transfer takes the EntryPoint nonce after theirs and waits for the in-flight ones (record-transfer.ts).
   */
  relayed: { id: string; status: string; callData: string | null }[];
}

/**
 * What the balances the in-flight records are counted against may already hold (prepareTransfer): read no
 * earlier than block `atBlock`, with these incoming transfers possibly in them. Without it, against the
 * latest balances as if nothing had landed since.
 */
export interface BalancesAt {
  atBlock: bigint;
  landedIncoming: string[];
}

/**
 * What `from`'s recorded transfers have in flight on `chain`. Call under `lockSender`. Each transfer counts
 * once, erring towards "not there yet" (N19): outgoing ones recorded as in a block after `at.atBlock` still
 * spend (the balances may predate them); incoming ones that may already be in the balances are not counted
 * again as on their way.
 */
export async function inFlightOf(tx: DbOrTx, chain: ChainName, from: Address, at?: BalancesAt): Promise<InFlight> {
  const inFlight = inArray(outboundTransfers.status, [...IN_FLIGHT_STATUSES]);
  const afterRead: SQL | undefined = at
    ? and(inArray(outboundTransfers.status, ['included', 'confirmed']), gt(outboundTransfers.includedBlockNumber, at.atBlock))
    : undefined;
  const notLanded = at?.landedIncoming.length ? notInArray(outboundTransfers.id, at.landedIncoming) : undefined;
  const [outgoing, incoming, [last]] = await Promise.all([
    tx
      .select({
        tokenAddress: outboundTransfers.tokenAddress,
        amount: outboundTransfers.amountBaseUnits,
        callValue: outboundTransfers.callValue,
        gasLimit: outboundTransfers.gasLimit,
        maxFeePerGas: outboundTransfers.maxFeePerGas,
        fromAddress: outboundTransfers.fromAddress,
        relayerAddress: outboundTransfers.relayerAddress,
        id: outboundTransfers.id,
        status: outboundTransfers.status,
        callData: outboundTransfers.callData,
        nonce: outboundTransfers.nonce,
      })
      .from(outboundTransfers)
      .where(
        and(
          eq(outboundTransfers.chain, chain),
          or(eq(outboundTransfers.fromAddress, from), eq(outboundTransfers.relayerAddress, from)),
          afterRead ? or(inFlight, afterRead) : inFlight,
        ),
      ),
    tx
      .select({ id: outboundTransfers.id, tokenAddress: outboundTransfers.tokenAddress, amount: outboundTransfers.amountBaseUnits })
      .from(outboundTransfers)
      .where(
        and(eq(outboundTransfers.chain, chain), eq(outboundTransfers.toAddress, from), notLanded ? and(inFlight, notLanded) : inFlight),
      ),
    tx
      .select({ nonce: outboundTransfers.nonce, callTo: outboundTransfers.callTo, rawTransaction: outboundTransfers.rawTransaction })
      .from(outboundTransfers)
      // Its own transactions' nonces: those it sent itself and those it relayed, never a relayed one of its value.
      .where(
        and(
          eq(outboundTransfers.chain, chain),
          or(
            and(eq(outboundTransfers.fromAddress, from), isNull(outboundTransfers.relayerAddress)),
            eq(outboundTransfers.relayerAddress, from),
          ),
        ),
      )
      .orderBy(desc(outboundTransfers.nonce))
      .limit(1),
  ]);
  const valueOut = new Map<string, bigint>();
  let nativeOut = 0n;
  let relayedOut = 0;
  const relayed: InFlight['relayed'] = [];
  // A batch of relayed transfers is one transaction at one relayer nonce: its gas counts once.
  const relayedNonces = new Set<number>();
  for (const row of outgoing) {
    const token = row.tokenAddress.toLowerCase();
    const gas = (row.gasLimit ?? 0n) * (row.maxFeePerGas ?? 0n);
    if (row.relayerAddress !== null) {
      // Relayed (ADR 0035): the value leaves the account, the gas the relayer; the outer call carries no value.
      if (row.fromAddress === from) {
        valueOut.set(token, (valueOut.get(token) ?? 0n) + row.amount);
        // The account's own coin moved by its call (execute(to, value, "")): native value, never gas.
        if (/^0x0{40}$/.test(token)) nativeOut += row.amount;
        relayed.push({ id: row.id, status: row.status, callData: row.callData });
        if ((IN_FLIGHT_STATUSES as readonly string[]).includes(row.status)) relayedOut++;
      }
      if (row.relayerAddress === from && !relayedNonces.has(row.nonce)) {
        relayedNonces.add(row.nonce);
        nativeOut += gas;
      }
      continue;
    }
    valueOut.set(token, (valueOut.get(token) ?? 0n) + row.amount);
    // Rows recorded before the engine kept the call: their value is the native amount, gas unknown.
    const value = row.callValue ?? (/^0x0{40}$/.test(token) ? row.amount : 0n);
    nativeOut += value + gas;
  }
  const valueIn = new Map<string, bigint>();
  const incomingIds = new Map<string, string[]>();
  for (const row of incoming) {
    const token = row.tokenAddress.toLowerCase();
    valueIn.set(token, (valueIn.get(token) ?? 0n) + row.amount);
    incomingIds.set(token, [...(incomingIds.get(token) ?? []), row.id]);
  }
  return {
    valueOut,
    nativeOut,
    valueIn,
    incomingIds,
    relayedOut,
    relayed,
    maxNonce: last ? Number(last.nonce) + (carriesOwnAuthorization(last, from) ? 1 : 0) : -1,
  };
}

/**
 * Whether the sender's last transaction is a call to itself that carries an EIP-7702 authorization: only the gas
 * tank's own delegation does (lib/smart-accounts/build-pull-call.ts; its fee bumps and cancels carry it too), and
 * that authorization consumes the nonce after the transaction's.
 */
function carriesOwnAuthorization(row: { callTo: string | null; rawTransaction: string }, from: Address): boolean {
  if (!row.callTo || getAddress(row.callTo) !== getAddress(from)) return false;
  try {
    const parsed = parseTransaction(row.rawTransaction as Hex);
    return parsed.type === 'eip7702' && (parsed.authorizationList?.length ?? 0) > 0;
  } catch {
    return false;
  }
}
