/**
 * A batch of relayed transfers (ADR 0035, "Batched sweeps"): one transaction of the gas tank,
 * `EntryPoint.handleOps` with one UserOperation per account (each signed by that account's key, each with its
 * EIP-7702 authorization when it is not delegated yet), recorded as one `outbound_transfers` row per account —
 * its value, its payee, its charge — all at the tank's one nonce and carrying the one transaction's hash and bytes.
 * The rows of a batch are exactly the rows of (chain, relayer_address, nonce): the reconciler follows each on
 * its own (each UserOperationEvent says whether that account's call moved its value), and re-signs them
 * together (reconcile-transfers.ts: a fee bump or a cancel replaces the one transaction for all of them).
 *
 * As recordTransfer, in the caller's database transaction and before anything is broadcast: under each account's
 * lock (in address order, so two batches never wait on each other in a cycle) the transfer gate and the in-flight
 * checks; then under the tank's lock its nonce, its balance and the sponsorship caps; one signature; the rows.
 *
 * Pull sweeps (ADR 0035, "Pull sweeps"): an item may `grant` (its operation also approves the tank for the
 * token), and a batch may be a `pull` — the tank's own executeBatch of transferFrom from accounts that granted
 * before (lib/smart-accounts/build-pull-call.ts). Same rows (from = the account, relayer = the tank), same
 * locks, gate, in-flight checks and caps; the reconciler confirms a pull row on its token's Transfer event.
 */
import { getAddress, keccak256, type Address, type Hex, type SignedAuthorization } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { CHAINS, nativeToken, type ChainName } from '@/lib/chains/registry';
import type { DbOrTx } from '@/lib/db/client';
import { outboundTransferAttempts, outboundTransfers, type OutboundTransferRow } from '@/lib/db/schema';
import { AppError, isAppError } from '@/lib/errors';
import { newId } from '@/lib/ids';
import { log } from '@/lib/log';
import { buildPullCall, grantCall } from '@/lib/smart-accounts/build-pull-call';
import { buildSponsoredCall } from '@/lib/smart-accounts/build-sponsored-call';
import { entryPointNonceOf } from '@/lib/smart-accounts/entry-point-nonce-of';
import type { SponsorFacts } from '@/lib/smart-accounts/read-sponsor-facts';
import { gasTankAccount } from './gas-tank';
import { assertSponsorshipAllowed, type GasSponsor, type SponsoredInBatch } from './gas-sponsorship';
import { inFlightOf, lockSender } from './lock-sender';
import type { PreparedTransfer } from './prepare-transfer';
import type { TransferPurpose } from './state';
import { authorizeTransfer, describeAuthority, type TransferAuthorization } from './transfer-policy';

/** The tank's transaction: handleOps to the EntryPoint, or a pull to itself. */
interface OuterCall {
  to: Address;
  data: Hex;
  gas: bigint;
  authorizationList: SignedAuthorization[];
}

/** approve's gas in a granting operation (a new allowance slot). */
const GRANT_GAS = 30_000n;

export interface RelayedBatchItem {
  /** Prepared with `relayed` (the account's sponsor facts and the tank's). */
  prepared: PreparedTransfer;
  /** The account's own key: it signs the UserOperation and the authorization. */
  signer: PrivateKeyAccount;
  purpose: TransferPurpose;
  authorization: TransferAuthorization;
  chargeId: string | null;
  gasSponsor: GasSponsor;
  /**
   * Pull sweeps (ADR 0035): the account's operation also grants the gas tank an allowance of the token
   * (approve(tank, max) before its transfer), so its later sweeps are pulled by the tank (`pull` below).
   */
  grant?: boolean;
}

export interface RecordedRelayedBatch {
  /** One row per account in the transaction, in the order of `items` (less those left out). */
  transfers: OutboundTransferRow[];
  /** Items left out, with why: they were not signed and may go in a later batch. */
  leftOut: { index: number; kind: 'in_flight' | 'balance' | 'sponsorship_limit'; reason: string }[];
}

export async function recordRelayedBatch(
  tx: DbOrTx,
  items: RelayedBatchItem[],
  options: {
    /**
     * A pull (ADR 0035, "Pull sweeps"): the accounts granted the tank an allowance before; the transaction is the
     * tank's own call to itself (executeBatch of transferFrom, lib/smart-accounts/build-pull-call.ts), no
     * UserOperation, no account signature. `tankDelegated`: whether the tank delegates to Simple7702Account
     * already (else the transaction carries its own authorization).
     */
    pull?: { tankDelegated: boolean };
  } = {},
): Promise<RecordedRelayedBatch> {
  if (items.length === 0) throw new Error('recordRelayedBatch: no item');
  const chain: ChainName = items[0]!.prepared.chain;
  for (const item of items) {
    if (item.prepared.chain !== chain) throw new Error('recordRelayedBatch: one chain per batch');
    if (!item.prepared.relay || !item.prepared.gasTank) throw new Error('recordRelayedBatch: prepareTransfer was not asked to relay');
    if (item.prepared.call.value > 0n || item.prepared.spend.token.isNative) throw new Error('recordRelayedBatch: tokens only');
    if (getAddress(item.signer.address) !== item.prepared.from)
      throw new Error('recordRelayedBatch: the signer is not the prepared sender');
  }
  if (new Set(items.map((i) => i.prepared.from)).size !== items.length) throw new Error('recordRelayedBatch: one transfer per account');

  const leftOut: RecordedRelayedBatch['leftOut'] = [];
  const admitted: number[] = [];
  const facts = new Map<number, SponsorFacts>();
  const order = items.map((_, index) => index).sort((a, b) => items[a]!.prepared.from.localeCompare(items[b]!.prepared.from));
  for (const index of order) {
    const item = items[index]!;
    const { prepared } = item;
    await lockSender(tx, chain, prepared.from);
    await authorizeTransfer(tx, { prepared, purpose: item.purpose, chargeId: item.chargeId, authorization: item.authorization });
    const flight = await inFlightOf(tx, chain, prepared.from, prepared.sender);
    // Each account's operation takes its next EntryPoint nonce, read before the lock: one in flight at a time.
    if (flight.relayedOut > 0) {
      leftOut.push({ index, kind: 'in_flight', reason: 'another relayed transfer of this account is in flight' });
      continue;
    }
    const tokenKey = prepared.spend.token.address.toLowerCase();
    const held = (prepared.sender.tokenBalance ?? 0n) - (flight.valueOut.get(tokenKey) ?? 0n);
    if (held < prepared.spend.amount) {
      leftOut.push({ index, kind: 'balance', reason: `holds ${held} of the ${prepared.spend.amount} base units to move` });
      continue;
    }
    // Its EntryPoint nonce: after any relayed transfer of it that landed after the nonce was read (record-transfer.ts).
    const entryPointNonce = flight.relayed.reduce((next, row) => {
      const used = entryPointNonceOf(row.callData, prepared.from);
      return used !== undefined && used + 1n > next ? used + 1n : next;
    }, prepared.relay!.entryPointNonce);
    facts.set(index, { ...prepared.relay!, entryPointNonce }); // (unused by a pull: no UserOperation)
    admitted.push(index);
  }
  admitted.sort((a, b) => a - b);

  // The caps (gas-sponsorship.ts): GAS_TANK_MAX_GAS_LIMIT on each account's own call; each sponsor's day counts
  // its transfers' shares of the transaction's gas, those recorded before and this batch's. A transfer that would
  // take its sponsor past its cap is left out (it waits, as a refused single sweep does), not the others.
  const tank = gasTankAccount();
  const chainId = CHAINS[chain].evmChainId!;
  const pulls = (indexes: number[]) =>
    indexes.map((index) => {
      const { prepared } = items[index]!;
      return {
        token: getAddress(prepared.spend.token.address),
        from: prepared.from,
        to: getAddress(prepared.spend.recipient),
        amount: prepared.spend.amount,
        gas: prepared.gas,
      };
    });
  // A pull's gas is known before its nonce; it is signed (with the tank's authorization at nonce + 1) below.
  const callFor = async (indexes: number[]): Promise<OuterCall> =>
    options.pull
      ? buildPullCall({ chainId, tank, pulls: pulls(indexes), delegated: options.pull.tankDelegated, nonce: 0 })
      : buildSponsoredCall({
          chainId,
          operations: indexes.map((index) => {
            const item = items[index]!;
            const token = item.prepared.spend.token.address as Address;
            return {
              owner: item.signer,
              facts: facts.get(index)!,
              calls: item.grant ? [grantCall(token, getAddress(tank.address)), item.prepared.call] : [item.prepared.call],
              callGas: item.prepared.gas + (item.grant ? GRANT_GAS : 0n),
            };
          }),
          relayer: tank.address as Address,
        });
  // Each sponsor's day is read once; each allowed row adds its share, so the batch stays within every cap. Leaving
  // a row out raises the others' share (the transaction's overhead split fewer ways): check again until it holds.
  const day: SponsoredInBatch['read'] = new Map();
  let allowed = admitted;
  let call: OuterCall | undefined;
  for (;;) {
    if (allowed.length === 0) return { transfers: [], leftOut };
    call = await callFor(allowed);
    const share = (call.gas + BigInt(allowed.length) - 1n) / BigInt(allowed.length);
    const inBatch: SponsoredInBatch = { read: day, added: new Map() };
    const next: number[] = [];
    for (const index of allowed) {
      const item = items[index]!;
      const refused = await assertSponsorshipAllowed(tx, {
        chain,
        sponsor: item.gasSponsor,
        gasLimit: item.prepared.gas,
        sponsoredGas: share,
        batch: inBatch,
      }).then(
        () => undefined,
        (error: unknown) => (isAppError(error) && error.code === 'gas_sponsorship_limit' ? error.message : Promise.reject(error)),
      );
      if (refused) leftOut.push({ index, kind: 'sponsorship_limit', reason: refused });
      else next.push(index);
    }
    if (next.length === allowed.length) break;
    allowed = next;
  }

  const batch = allowed.map((index) => items[index]!);
  // Every item read the tank in its own pass: its nonce floor is the highest seen, its balance the lowest.
  const tankFacts = batch.map((i) => i.prepared.gasTank!);
  const tankAddress = tankFacts[0]!.address;
  if (getAddress(tank.address) !== getAddress(tankAddress)) throw new Error('recordRelayedBatch: the gas tank changed');
  await lockSender(tx, chain, tankAddress);
  const flight = await inFlightOf(tx, chain, tankAddress);
  const nonce = Math.max(...tankFacts.map((f) => f.chainNonce), flight.maxNonce + 1);
  const sponsored: OuterCall = options.pull
    ? await buildPullCall({ chainId, tank, pulls: pulls(allowed), delegated: options.pull.tankDelegated, nonce })
    : call;
  const maxFeePerGas = batch.reduce((max, i) => (i.prepared.maxFeePerGas > max ? i.prepared.maxFeePerGas : max), 0n);
  const maxPriorityFeePerGas = batch.reduce(
    (max, i) => (i.prepared.maxPriorityFeePerGas > max ? i.prepared.maxPriorityFeePerGas : max),
    0n,
  );
  const cost = sponsored.gas * maxFeePerGas;
  const available =
    tankFacts.reduce((min, f) => (f.nativeBalance < min ? f.nativeBalance : min), tankFacts[0]!.nativeBalance) - flight.nativeOut;
  if (available < cost) {
    log.error('gas tank cannot cover a batch of relayed transfers; fund it (npm run admin -- gas-tank status)', {
      chain,
      tank: tankAddress,
      transfers: batch.length,
      available: available.toString(),
      needed: cost.toString(),
    });
    throw new AppError(
      'gas_tank_empty',
      `Network fees on ${CHAINS[chain].displayName} cannot be covered right now (the fee wallet needs ${nativeToken(CHAINS[chain]).symbol}). Try again later.`,
    );
  }
  const raw = await tank.signTransaction({
    ...(sponsored.authorizationList.length
      ? { type: 'eip7702' as const, authorizationList: sponsored.authorizationList }
      : { type: 'eip1559' as const }),
    chainId,
    nonce,
    to: sponsored.to,
    value: 0n,
    data: sponsored.data,
    gas: sponsored.gas,
    maxFeePerGas,
    maxPriorityFeePerGas,
  });
  const txHash = keccak256(raw);
  const transfers = await tx
    .insert(outboundTransfers)
    .values(
      batch.map((item) => ({
        id: newId('outboundTransfer'),
        chargeId: item.chargeId,
        purpose: item.purpose,
        chain,
        fromAddress: item.prepared.from,
        relayerAddress: getAddress(tank.address),
        toAddress: item.prepared.spend.recipient,
        tokenAddress: item.prepared.spend.token.address,
        amountBaseUnits: item.prepared.spend.amount,
        nonce,
        txHash,
        rawTransaction: raw,
        status: 'signed' as const,
        callTo: sponsored.to,
        callValue: 0n,
        callData: sponsored.data,
        gasLimit: sponsored.gas,
        maxFeePerGas,
        maxPriorityFeePerGas,
        dependsOnTransferIds: [],
        sponsorMerchantId: item.gasSponsor.merchantId ?? null,
        sponsorUserId: item.gasSponsor.userId ?? null,
        authority: describeAuthority(item.authorization.authority),
      })),
    )
    .returning();
  await tx.insert(outboundTransferAttempts).values(
    transfers.map((row) => ({
      id: newId('transferAttempt'),
      transferId: row.id,
      chain,
      kind: 'original' as const,
      txHash,
      rawTransaction: raw,
      maxFeePerGas,
      maxPriorityFeePerGas,
    })),
  );
  const byFrom = new Map(transfers.map((row) => [row.fromAddress, row]));
  return { transfers: batch.map((item) => byFrom.get(item.prepared.from)!), leftOut };
}
