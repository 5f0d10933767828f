/**
 * Step 1 of every send (docs/adr/0016-one-transaction-engine.md): in the caller's database transaction,
 * under the sender's lock, ask the transfer gate whether this authority may move value to this
 * destination (transfer-policy.ts, ADR 0025: refused → nothing is signed), decide with what is already in
 * flight whether the wallet can afford it, let the gas tank pay the fee if the caller allows it (its
 * top-up passes the gate too), take the next nonce, sign, and record the transfer with its authority and
 * its first attempt. Nothing has left the server yet: broadcast-transfer.ts sends it after commit.
 *
 * The chain facts come from prepareTransfer (read before the transaction: no RPC call waits here).
 * A relayed transfer (prepared with `relayed`, ADR 0035) has no top-up: the gas tank signs a type-4
 * transaction carrying the sender's own signed smart-account call, at the tank's nonce, and pays its gas.
 */
import { and, eq, sql } from 'drizzle-orm';
import { getAddress, keccak256, type SignedAuthorization } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { CHAINS, nativeToken } from '@/lib/chains/registry';
import type { DbOrTx } from '@/lib/db/client';
import { outboundTransferAttempts, outboundTransfers, type OutboundTransferRow } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';
import { newId } from '@/lib/ids';
import { log } from '@/lib/log';
import { formatAmount } from '@/lib/money';
import { buildSponsoredCall } from '@/lib/smart-accounts/build-sponsored-call';
import { entryPointNonceOf } from '@/lib/smart-accounts/entry-point-nonce-of';
import { gasTankAccount } from './gas-tank';
import { assertSponsorshipAllowed, type GasSponsor } from './gas-sponsorship';
import type { PreparedTransfer } from './prepare-transfer';
import { inFlightOf, lockSender, type InFlight } from './lock-sender';
import { IN_FLIGHT_STATUSES, type TransferPurpose } from './state';
import { authorizeTransfer, describeAuthority, type TransferAuthorization } from './transfer-policy';

export interface RecordTransferInput {
  prepared: PreparedTransfer;
  signer: PrivateKeyAccount;
  purpose: TransferPurpose;
  /** Who authorised the movement and where it goes: the transfer gate checks it against its table and the database. */
  authorization: TransferAuthorization;
  chargeId?: string | null;
  /** The gas tank pays the fee when the sender is short of native coin, charged to this sponsor's daily cap. Omitted: the sender pays. */
  gasSponsor?: GasSponsor;
  /** A user- or merchant-initiated send's id: the same id finds the first transfer instead of sending again. */
  idempotency?: { scope: string; key: string };
  /** How the sender is named in a "not enough" message ("Your wallet", "The merchant wallet"). */
  senderLabel?: string;
}

export interface RecordedTransfer {
  transfer: OutboundTransferRow;
  /** The top-up the gas tank sends first, when it pays the fee. */
  gasTopUp?: OutboundTransferRow;
  /** True when the idempotency id found an earlier transfer (nothing new was signed). */
  replayed: boolean;
}

export async function recordTransfer(tx: DbOrTx, input: RecordTransferInput): Promise<RecordedTransfer> {
  const { prepared } = input;
  if (getAddress(input.signer.address) !== prepared.from) throw new Error('recordTransfer: the signer is not the prepared sender');

  if (input.idempotency) {
    const { scope, key } = input.idempotency;
    // Retries of one id wait here for the first, then find its row.
    await tx.execute(sqlLock(`transfer-idempotency:${scope}:${key}`));
    const [existing] = await tx
      .select()
      .from(outboundTransfers)
      .where(and(eq(outboundTransfers.idempotencyScope, scope), eq(outboundTransfers.idempotencyKey, key)));
    if (existing) return { transfer: existing, replayed: true };
  }

  await lockSender(tx, prepared.chain, prepared.from);
  await authorizeTransfer(tx, { prepared, purpose: input.purpose, chargeId: input.chargeId, authorization: input.authorization });
  const flight = await inFlightOf(tx, prepared.chain, prepared.from, prepared.sender);
  const { token, amount } = prepared.spend;
  const chain = CHAINS[prepared.chain];
  const native = nativeToken(chain);
  const nativeKey = native.address.toLowerCase();
  const label = input.senderLabel ?? 'The wallet';
  const inFlightNote = (units: bigint, symbol: string, decimals: number) =>
    units > 0n ? ` (${formatAmount(units, decimals)} ${symbol} of it is already committed to transfers on their way)` : '';
  // Value on its way to the sender (a sweep into the merchant wallet, a gas top-up) counts, and then the
  // new transfer waits for it: it is broadcast only once those are in a block.
  const dependencies = new Set<string>();
  const countOn = (tokenKey: string) => (flight.incomingIds.get(tokenKey) ?? []).forEach((id) => dependencies.add(id));

  if (!token.isNative) {
    const tokenKey = token.address.toLowerCase();
    const committed = flight.valueOut.get(tokenKey) ?? 0n;
    const held = (prepared.sender.tokenBalance ?? 0n) - committed;
    const available = held + (flight.valueIn.get(tokenKey) ?? 0n);
    if (available < amount) {
      throw new AppError(
        'insufficient_balance',
        `${label} holds ${formatAmount(clampZero(available), token.decimals)} ${token.symbol} available on ${chain.displayName}${inFlightNote(committed, token.symbol, token.decimals)}; this needs ${formatAmount(amount, token.decimals)}.`,
        { param: 'amount' },
      );
    }
    if (held < amount) countOn(tokenKey);
  }

  if (prepared.relay) {
    if (
      prepared.call.value > 0n &&
      (flight.valueIn.get(nativeKey) ?? 0n) > 0n &&
      prepared.sender.nativeBalance - flight.nativeOut < prepared.call.value
    )
      countOn(nativeKey);
    return recordRelayed(tx, input, { flight, dependsOnTransferIds: [...dependencies] });
  }

  const gasCost = prepared.gas * prepared.maxFeePerGas;
  const nativeHeld = prepared.sender.nativeBalance - flight.nativeOut;
  const nativeAvailable = nativeHeld + (flight.valueIn.get(nativeKey) ?? 0n);
  if (prepared.call.value > 0n && nativeAvailable < prepared.call.value + (input.gasSponsor ? 0n : gasCost)) {
    // The tank pays fees, never value: native value must be the sender's own.
    throw new AppError(
      'insufficient_balance',
      `${label} holds ${formatAmount(clampZero(nativeAvailable), native.decimals)} ${native.symbol} available on ${chain.displayName}${inFlightNote(flight.nativeOut, native.symbol, native.decimals)}; this needs ${formatAmount(prepared.call.value, native.decimals)}${input.gasSponsor ? '' : ` plus a network fee of up to ${formatAmount(gasCost, native.decimals)}`}.`,
      { param: 'amount' },
    );
  }

  let gasTopUp: OutboundTransferRow | undefined;
  const shortfall = prepared.call.value + gasCost - nativeAvailable;
  if (shortfall > 0n) {
    if (!input.gasSponsor) {
      throw new AppError(
        'insufficient_balance',
        `The network fee (up to ${formatAmount(gasCost, native.decimals)} ${native.symbol}) is paid in ${native.symbol}, and ${label.toLowerCase()} has ${formatAmount(clampZero(nativeAvailable - prepared.call.value), native.decimals)} ${native.symbol} available on ${chain.displayName}. Add ${native.symbol} first.`,
        { param: 'amount' },
      );
    }
    gasTopUp = await recordGasTopUp(tx, { prepared, amount: shortfall, sponsor: input.gasSponsor, chargeId: input.chargeId ?? null });
    dependencies.add(gasTopUp.id);
  }
  if (nativeHeld < prepared.call.value + gasCost) countOn(nativeKey);

  const transfer = await signAndInsert(tx, {
    prepared,
    signer: input.signer,
    nonce: Math.max(prepared.sender.chainNonce, flight.maxNonce + 1),
    purpose: input.purpose,
    authorization: input.authorization,
    chargeId: input.chargeId ?? null,
    dependsOnTransferIds: [...dependencies],
    idempotency: input.idempotency,
  });
  return { transfer, gasTopUp, replayed: false };
}

/**
 * ADR 0035: the gas tank relays the sender's smart-account call (an EntryPoint UserOperation the sender's key
 * signs, with its EIP-7702 authorization when it is not delegated yet) and pays the gas itself: no top-up, and
 * the sender never holds native coin. Recorded like any transfer (the sender's value, the tank's nonce), under
 * the sender's lock, then the tank's. Native value is the account's own (`execute(to, value, "")`): its whole
 * balance can move, the fee is the tank's.
 *
 * One EntryPoint nonce per operation, in order: a spend recorded while others of the account are in flight
 * (or landed after its facts were read) takes the nonce after the highest of theirs and is broadcast only
 * once they are in a block (`depends_on_transfer_ids`). Should one of them never land (cancelled), the
 * next one's nonce is out of sequence: the EntryPoint refuses it, and it fails without moving anything.
 */
async function recordRelayed(
  tx: DbOrTx,
  input: RecordTransferInput,
  account: { flight: InFlight; dependsOnTransferIds: string[] },
): Promise<RecordedTransfer> {
  const { prepared } = input;
  const tankFacts = prepared.gasTank;
  if (!prepared.relay || !tankFacts) throw new Error('recordRelayed: prepareTransfer was not asked to relay');
  if (!input.gasSponsor) throw new Error('recordRelayed: a relayed transfer needs a gas sponsor');
  const chain = CHAINS[prepared.chain];
  const native = nativeToken(chain);
  const { flight } = account;
  if (prepared.call.value > 0n) {
    const available = prepared.sender.nativeBalance - flight.nativeOut + (flight.valueIn.get(native.address.toLowerCase()) ?? 0n);
    if (available < prepared.call.value) {
      throw new AppError(
        'insufficient_balance',
        `${input.senderLabel ?? 'The wallet'} holds ${formatAmount(clampZero(available), native.decimals)} ${native.symbol} available on ${chain.displayName}; this needs ${formatAmount(prepared.call.value, native.decimals)} (the service pays the network fee).`,
        { param: 'amount' },
      );
    }
  }
  const queued = flight.relayed.map((row) => ({ ...row, nonce: entryPointNonceOf(row.callData, prepared.from) }));
  const entryPointNonce = queued.reduce(
    (next, row) => (row.nonce !== undefined && row.nonce + 1n > next ? row.nonce + 1n : next),
    prepared.relay.entryPointNonce,
  );
  const waitFor = queued.filter((row) => (IN_FLIGHT_STATUSES as readonly string[]).includes(row.status)).map((row) => row.id);
  const tank = gasTankAccount();
  await lockSender(tx, prepared.chain, tankFacts.address);
  const tankFlight = await inFlightOf(tx, prepared.chain, tankFacts.address);
  const call = await buildSponsoredCall({
    chainId: chain.evmChainId!,
    operations: [{ owner: input.signer, facts: { ...prepared.relay, entryPointNonce }, calls: [prepared.call], callGas: prepared.gas }],
    relayer: tank.address,
  });
  // The per-transaction cap applies to the account's own call, as for a top-up; the day's gas counts the whole relayed
  // transaction (the EntryPoint's validation and the authorization too).
  await assertSponsorshipAllowed(tx, { chain: prepared.chain, sponsor: input.gasSponsor, gasLimit: prepared.gas, sponsoredGas: call.gas });
  const cost = call.gas * prepared.maxFeePerGas;
  const available = tankFacts.nativeBalance - tankFlight.nativeOut;
  if (available < cost) {
    log.error('gas tank cannot cover a relayed transfer; fund it (npm run admin -- gas-tank status)', {
      chain: prepared.chain,
      tank: tankFacts.address,
      available: available.toString(),
      needed: cost.toString(),
    });
    throw new AppError(
      'gas_tank_empty',
      `Network fees on ${chain.displayName} cannot be covered right now (the fee wallet needs ${native.symbol}). Try again later.`,
    );
  }
  const transfer = await signAndInsert(tx, {
    prepared: { ...prepared, call: { to: call.to, value: 0n, data: call.data }, gas: call.gas },
    signer: tank,
    nonce: Math.max(tankFacts.chainNonce, tankFlight.maxNonce + 1),
    purpose: input.purpose,
    authorization: input.authorization,
    chargeId: input.chargeId ?? null,
    dependsOnTransferIds: [...new Set([...account.dependsOnTransferIds, ...waitFor])],
    idempotency: input.idempotency,
    sponsor: input.gasSponsor,
    relay: { authorizationList: call.authorizationList },
  });
  return { transfer, replayed: false };
}

/** The tank sends `amount` of native coin to the sender, charged to the sponsor's daily cap. Under the sender's lock, then the tank's. */
async function recordGasTopUp(
  tx: DbOrTx,
  input: { prepared: PreparedTransfer; amount: bigint; sponsor: GasSponsor; chargeId: string | null },
): Promise<OutboundTransferRow> {
  const { prepared } = input;
  const tankFacts = prepared.gasTank;
  if (!tankFacts) throw new Error('recordGasTopUp: prepareTransfer was not asked for the gas tank');
  // The gas it buys (as the cap counts it: amount ÷ max fee, rounded up) and its own.
  const bought = prepared.maxFeePerGas > 0n ? (input.amount + prepared.maxFeePerGas - 1n) / prepared.maxFeePerGas : 0n;
  await assertSponsorshipAllowed(tx, {
    chain: prepared.chain,
    sponsor: input.sponsor,
    gasLimit: prepared.gas,
    sponsoredGas: bought + 21_000n,
  });
  const tank = gasTankAccount();
  // Lock order: the sender first, then the tank (the tank never needs a sponsor), so two spends never wait on each other in a cycle.
  await lockSender(tx, prepared.chain, tankFacts.address);
  const flight = await inFlightOf(tx, prepared.chain, tankFacts.address, tankFacts);
  const gas = 21_000n;
  const tankCost = input.amount + gas * prepared.maxFeePerGas;
  // The tank counts only what it holds: it is funded from outside, never by our own transfers.
  const available = tankFacts.nativeBalance - flight.nativeOut;
  if (available < tankCost) {
    const native = nativeToken(CHAINS[prepared.chain]);
    log.error('gas tank cannot cover a fee; fund it (npm run admin -- gas-tank status)', {
      chain: prepared.chain,
      tank: tankFacts.address,
      available: available.toString(),
      needed: tankCost.toString(),
    });
    throw new AppError(
      'gas_tank_empty',
      `Network fees on ${CHAINS[prepared.chain].displayName} cannot be covered right now (the fee wallet needs ${native.symbol}). Try again later.`,
    );
  }
  const topUp: PreparedTransfer = {
    chain: prepared.chain,
    from: tankFacts.address,
    call: { to: prepared.from, value: input.amount, data: undefined },
    spend: { token: nativeToken(CHAINS[prepared.chain]), amount: input.amount, recipient: prepared.from },
    gas,
    maxFeePerGas: prepared.maxFeePerGas,
    maxPriorityFeePerGas: prepared.maxPriorityFeePerGas,
    sender: tankFacts,
  };
  const authorization = {
    authority: { kind: 'system', job: 'gas_topup' },
    destination: { class: 'sponsored_sender' },
  } as const satisfies TransferAuthorization;
  await authorizeTransfer(tx, { prepared: topUp, purpose: 'gas_topup', chargeId: input.chargeId, authorization });
  return signAndInsert(tx, {
    prepared: topUp,
    signer: tank,
    nonce: Math.max(tankFacts.chainNonce, flight.maxNonce + 1),
    purpose: 'gas_topup',
    authorization,
    chargeId: input.chargeId,
    dependsOnTransferIds: [],
    sponsor: input.sponsor,
  });
}

async function signAndInsert(
  tx: DbOrTx,
  input: {
    prepared: PreparedTransfer;
    signer: PrivateKeyAccount;
    nonce: number;
    purpose: TransferPurpose;
    authorization: TransferAuthorization;
    chargeId: string | null;
    dependsOnTransferIds: string[];
    idempotency?: { scope: string; key: string };
    sponsor?: GasSponsor;
    /** Relayed (ADR 0035): the signer is the relayer; `prepared.from` the account whose value moves. */
    relay?: { authorizationList: SignedAuthorization[] };
  },
): Promise<OutboundTransferRow> {
  const { prepared } = input;
  const authorizationList = input.relay?.authorizationList ?? [];
  const raw = await input.signer.signTransaction({
    ...(authorizationList.length ? { type: 'eip7702' as const, authorizationList } : { type: 'eip1559' as const }),
    chainId: CHAINS[prepared.chain].evmChainId!,
    nonce: input.nonce,
    to: prepared.call.to,
    value: prepared.call.value,
    data: prepared.call.data,
    gas: prepared.gas,
    maxFeePerGas: prepared.maxFeePerGas,
    maxPriorityFeePerGas: prepared.maxPriorityFeePerGas,
  });
  const txHash = keccak256(raw);
  const [row] = await tx
    .insert(outboundTransfers)
    .values({
      id: newId('outboundTransfer'),
      chargeId: input.chargeId,
      purpose: input.purpose,
      chain: prepared.chain,
      fromAddress: prepared.from,
      relayerAddress: input.relay ? getAddress(input.signer.address) : null,
      toAddress: prepared.spend.recipient,
      tokenAddress: prepared.spend.token.address,
      amountBaseUnits: prepared.spend.amount,
      nonce: input.nonce,
      txHash,
      rawTransaction: raw,
      status: 'signed',
      callTo: prepared.call.to,
      callValue: prepared.call.value,
      callData: prepared.call.data ?? null,
      gasLimit: prepared.gas,
      maxFeePerGas: prepared.maxFeePerGas,
      maxPriorityFeePerGas: prepared.maxPriorityFeePerGas,
      dependsOnTransferIds: input.dependsOnTransferIds,
      idempotencyScope: input.idempotency?.scope ?? null,
      idempotencyKey: input.idempotency?.key ?? null,
      sponsorMerchantId: input.sponsor?.merchantId ?? null,
      sponsorUserId: input.sponsor?.userId ?? null,
      authority: describeAuthority(input.authorization.authority),
    })
    .returning();
  await tx.insert(outboundTransferAttempts).values({
    id: newId('transferAttempt'),
    transferId: row!.id,
    chain: prepared.chain,
    kind: 'original',
    txHash,
    rawTransaction: raw,
    maxFeePerGas: prepared.maxFeePerGas,
    maxPriorityFeePerGas: prepared.maxPriorityFeePerGas,
  });
  return row!;
}

function clampZero(value: bigint): bigint {
  return value > 0n ? value : 0n;
}

function sqlLock(key: string) {
  return sql`select pg_advisory_xact_lock(hashtextextended(${key}, 0))`;
}
