/**
 * Step 1 of every send (docs/adr/0016-one-transaction-engine.md): in the caller's database transaction,
 * under the sender's lock, ask the transfer gate whether this authority may move value to this
 * destination (transfer-policy.ts, ADR 0025: refused → nothing is signed), decide with what is already in
 * flight whether the wallet can afford it, let the gas tank pay the fee if the caller allows it (its
 * top-up passes the gate too), take the next nonce, sign, and record the transfer with its authority and
 * its first attempt. Nothing has left the server yet: broadcast-transfer.ts sends it after commit.
 *
 * The chain facts come from prepareTransfer (read before the transaction: no RPC call waits here).
 */
import { and, eq, sql } from 'drizzle-orm';
import { getAddress, keccak256 } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { CHAINS, nativeToken } from '@/lib/chains/registry';
import type { DbOrTx } from '@/lib/db/client';
import { outboundTransferAttempts, outboundTransfers, type OutboundTransferRow } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';
import { newId } from '@/lib/ids';
import { log } from '@/lib/log';
import { formatAmount } from '@/lib/money';
import { gasTankAccount } from './gas-tank';
import { assertSponsorshipAllowed, type GasSponsor } from './gas-sponsorship';
import type { PreparedTransfer } from './prepare-transfer';
import { inFlightOf, lockSender } from './lock-sender';
import type { TransferPurpose } from './state';
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

/** The tank sends `amount` of native coin to the sender, charged to the sponsor's daily cap. Under the sender's lock, then the tank's. */
async function recordGasTopUp(
  tx: DbOrTx,
  input: { prepared: PreparedTransfer; amount: bigint; sponsor: GasSponsor; chargeId: string | null },
): Promise<OutboundTransferRow> {
  const { prepared } = input;
  const tankFacts = prepared.gasTank;
  if (!tankFacts) throw new Error('recordGasTopUp: prepareTransfer was not asked for the gas tank');
  await assertSponsorshipAllowed(tx, { chain: prepared.chain, sponsor: input.sponsor, gasLimit: prepared.gas });
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
  },
): Promise<OutboundTransferRow> {
  const { prepared } = input;
  const raw = await input.signer.signTransaction({
    type: 'eip1559',
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
