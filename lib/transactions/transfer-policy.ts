/**
 * The transfer gate (docs/adr/0025-one-gate-for-every-transfer.md): every movement of value the service
 * signs names WHO authorised it (an authority) and WHERE it goes (a destination class). One table below
 * says which (purpose, authority, destination class) may move value; a combination without a row is
 * refused. `recordTransfer` asks the gate under the sender's lock, before signing, so no feature can move
 * funds the table does not allow, whatever its own checks.
 *
 * The gate does not trust the caller's words: it checks each destination class against the database (and
 * the call it is about to sign) — "the original payer" must be an address that paid this charge, "an item
 * contract" must be registered by this charge's merchant and the call must not be a token-moving function,
 * "owner approved" must come from an owner's step-up. Who the authority is was established by the caller's
 * own authentication (PIN, step-up, API key, session); the gate re-checks what the database can say about
 * it (an owner is an owner of that merchant, a member is a member of it, a charge belongs to the key's
 * merchant). Refusal: 403 transfer_not_authorized, and nothing is signed or recorded.
 *
 * Solana sweeps ask the same table (`authorizeTransfer` without a `call`): classes that need a call
 * (item_contract, swap_router, self) are refused there.
 */
import { and, eq, inArray, type AnyColumn } from 'drizzle-orm';
import { decodeFunctionData, erc20Abi, getAddress, isAddress, type Address, type Hex } from 'viem';
import type { ChainName } from '@/lib/chains/registry';
import type { DbOrTx } from '@/lib/db/client';
import {
  charges,
  depositAddresses,
  depositRecoveries,
  merchantContracts,
  merchantMembers,
  outboundTransfers,
  payments,
  refunds,
  spendingAllowances,
  wallets,
} from '@/lib/db/schema';
import { AppError } from '@/lib/errors';
import { log } from '@/lib/log';
import { configuredSwapPairs } from '@/lib/chains/swap-pairs';
import { uniswapV2Router02Abi } from '@/lib/chains/uniswap-v2-router';
import { TRANSFER_PURPOSES, type TransferPurpose } from './state';
import { allowanceAuthority, allowanceSpent } from './allowance-spent';
import { TOKEN_MOVING_SELECTORS } from './token-moving-selectors';

// ---------------------------------------------------------------------------------------------------------
// The vocabulary
// ---------------------------------------------------------------------------------------------------------

/** The jobs of ours that move value on their own. */
export const SYSTEM_JOBS = ['sweep', 'gas_topup', 'fulfilment', 'order_delivery', 'swap', 'cancel'] as const;
type SystemJob = (typeof SYSTEM_JOBS)[number];

/** What authorised a movement. */
export type TransferAuthority =
  /** A consumer confirmed with their PIN (or a passkey step-up) on our page. */
  | { kind: 'payer_pin'; userId: string }
  /**
   * A consumer's one tap under a spending allowance they approved with their PIN (ADR 0034): the gate
   * checks the allowance under its lock — the user's, live, for this charge's merchant, chain and token,
   * and the last 24 hours' payments under it plus this one within its amount per day.
   */
  | { kind: 'payer_allowance'; userId: string; allowanceId: string }
  /** An owner of the merchant confirmed with step-up (the gate checks they are an owner). */
  | { kind: 'owner_step_up'; userId: string; merchantId: string }
  /** A dashboard member with the needed permission (the gate checks they are a member). */
  | { kind: 'member'; userId: string; merchantId: string }
  /** A merchant secret key. */
  | { kind: 'api_key'; apiKeyId: string; merchantId: string }
  /** The payer chose the destination on a refund claim link. */
  | { kind: 'payer_claim'; claimId: string }
  /** A job of ours. */
  | { kind: 'system'; job: SystemJob }
  /** Two operators: one requested a recovery from a deposit address, another approved it (deposit_recoveries). */
  | { kind: 'two_operators'; recoveryId: string };

/** Where the value goes, each class verified by the gate. */
type TransferDestination =
  | { class: 'charge_deposit' }
  | { class: 'merchant_wallet' }
  | { class: 'charge_payee' }
  | { class: 'original_payer' }
  | { class: 'claim_address'; claimId: string }
  /** The address the owner approved (it must be the recipient). */
  | { class: 'owner_approved'; address: string }
  | { class: 'item_contract' }
  | { class: 'swap_router' }
  | { class: 'sponsored_sender' }
  | { class: 'any_address' }
  | { class: 'self' }
  /** The address named in an approved recovery request. */
  | { class: 'recovery_address'; recoveryId: string };

export type DestinationClass = TransferDestination['class'];

export interface TransferAuthorization {
  authority: TransferAuthority;
  destination: TransferDestination;
}

/** The table's authority column: the kind, and for system jobs which job. */
type AuthorityKey = Exclude<TransferAuthority['kind'], 'system'> | `system:${SystemJob}`;

/** A transfer purpose, or 'cancel': the reconciler's 0-value self-transfer at a stuck nonce (an attempt of another transfer). */
export type PolicyPurpose = TransferPurpose | 'cancel';

export interface PolicyRow {
  purpose: PolicyPurpose;
  authority: AuthorityKey;
  destination: DestinationClass;
}

// ---------------------------------------------------------------------------------------------------------
// THE table. A movement matches a row or is refused. Adding a purpose or a caller means adding its row here
// (transfer-policy.test.ts reads every call of recordTransfer and fails otherwise).
// ---------------------------------------------------------------------------------------------------------

export const TRANSFER_POLICY: readonly PolicyRow[] = [
  { purpose: 'balance_payment', authority: 'payer_pin', destination: 'charge_deposit' },
  // One tap within a spending allowance: a charge's deposit only — never a send, a withdrawal or a refund (ADR 0034).
  { purpose: 'balance_payment', authority: 'payer_allowance', destination: 'charge_deposit' },
  // A card order below the provider's minimum delivered to the buyer's wallet pays its charge (ADR 0019).
  { purpose: 'balance_payment', authority: 'system:order_delivery', destination: 'charge_deposit' },
  { purpose: 'wallet_send', authority: 'payer_pin', destination: 'any_address' },
  { purpose: 'withdrawal', authority: 'owner_step_up', destination: 'owner_approved' },
  { purpose: 'refund', authority: 'api_key', destination: 'original_payer' },
  { purpose: 'refund', authority: 'member', destination: 'original_payer' },
  { purpose: 'refund', authority: 'owner_step_up', destination: 'original_payer' },
  { purpose: 'refund', authority: 'owner_step_up', destination: 'owner_approved' },
  { purpose: 'refund', authority: 'payer_claim', destination: 'claim_address' },
  { purpose: 'sweep', authority: 'system:sweep', destination: 'merchant_wallet' },
  { purpose: 'sweep', authority: 'system:sweep', destination: 'charge_payee' },
  { purpose: 'gas_topup', authority: 'system:gas_topup', destination: 'sponsored_sender' },
  { purpose: 'fulfilment', authority: 'system:fulfilment', destination: 'item_contract' },
  { purpose: 'swap_approve', authority: 'system:swap', destination: 'swap_router' },
  { purpose: 'swap', authority: 'system:swap', destination: 'swap_router' },
  { purpose: 'cancel', authority: 'system:cancel', destination: 'self' },
  // Funds the charge does not cover (a wrong token, a swap's leftover) returned from a deposit address by operators.
  { purpose: 'recovery', authority: 'two_operators', destination: 'recovery_address' },
];

/** Every purpose a row may name (the transfer purposes and the reconciler's cancel). */
export const POLICY_PURPOSES: readonly PolicyPurpose[] = [...TRANSFER_PURPOSES, 'cancel'];

function authorityKey(authority: TransferAuthority): AuthorityKey {
  return authority.kind === 'system' ? `system:${authority.job}` : authority.kind;
}

/** The table's answer alone (no verification): 'allow' when a row matches, else 'refuse'. */
export function decideTransfer(purpose: PolicyPurpose, authorization: TransferAuthorization): 'allow' | 'refuse' {
  const key = authorityKey(authorization.authority);
  const row = TRANSFER_POLICY.find(
    (r) => r.purpose === purpose && r.authority === key && r.destination === authorization.destination.class,
  );
  return row ? 'allow' : 'refuse';
}

/** How the authority is written on the transfer row (outbound_transfers.authority), for the books and audits. */
export function describeAuthority(authority: TransferAuthority): string {
  switch (authority.kind) {
    case 'payer_pin':
      return `payer_pin:${authority.userId}`;
    case 'payer_allowance':
      return allowanceAuthority(authority.allowanceId, authority.userId);
    case 'owner_step_up':
      return `owner_step_up:${authority.userId}@${authority.merchantId}`;
    case 'member':
      return `member:${authority.userId}@${authority.merchantId}`;
    case 'api_key':
      return `api_key:${authority.apiKeyId}@${authority.merchantId}`;
    case 'payer_claim':
      return `payer_claim:${authority.claimId}`;
    case 'system':
      return `system:${authority.job}`;
    case 'two_operators':
      return `two_operators:${authority.recoveryId}`;
  }
}

// ---------------------------------------------------------------------------------------------------------
// The gate
// ---------------------------------------------------------------------------------------------------------

/** What is about to be signed: a PreparedTransfer on EVM; Solana gives no call. */
export interface TransferMovement {
  chain: ChainName;
  from: string;
  spend: { token: { address: string; isNative: boolean }; amount: bigint; recipient: string };
  call?: { to: Address; value: bigint; data: Hex | undefined };
}

/**
 * Allows the movement or throws 403 transfer_not_authorized. Run in the recording transaction, before
 * signing; reads only the database (no RPC call waits here).
 */
export async function authorizeTransfer(
  tx: DbOrTx,
  input: { prepared: TransferMovement; purpose: PolicyPurpose; chargeId?: string | null; authorization: TransferAuthorization },
): Promise<void> {
  const { authorization, purpose } = input;
  const refuse = (why: string): never => {
    log.warn('transfer gate refused a movement', {
      purpose,
      authority: describeAuthority(authorization.authority),
      destination: authorization.destination.class,
      chain: input.prepared.chain,
      from: input.prepared.from,
      recipient: input.prepared.spend.recipient,
      chargeId: input.chargeId ?? null,
      why,
    });
    throw new AppError('transfer_not_authorized', why);
  };
  if (decideTransfer(purpose, authorization) === 'refuse') {
    refuse(
      `A ${purpose.replaceAll('_', ' ')} authorised by ${authorityKey(authorization.authority).replace(':', ' ')} may not go to a ${authorization.destination.class.replaceAll('_', ' ')} destination.`,
    );
  }
  const why = (await verifyAuthority(tx, input)) ?? (await verifyDestination(tx, input));
  if (why) refuse(why);
}

type GateInput = Parameters<typeof authorizeTransfer>[1];

/** EVM addresses compare without their checksum case; Solana's base58 addresses compare exactly. */
const isEvm = (address: string) => address.startsWith('0x');
const same = (a: string | null | undefined, b: string | null | undefined) =>
  !!a && !!b && (isEvm(a) && isEvm(b) ? a.toLowerCase() === b.toLowerCase() : a === b);
/** An address column equal to `address` (EVM: stored checksummed or lower-case; both forms use the column's index). */
const addressIs = (column: AnyColumn, address: string) =>
  isEvm(address) && isAddress(address, { strict: false })
    ? inArray(column, [getAddress(address), address.toLowerCase()])
    : eq(column, address);

async function chargeOf(tx: DbOrTx, chargeId: string | null | undefined) {
  if (!chargeId) return undefined;
  const [charge] = await tx
    .select({ id: charges.id, merchantId: charges.merchantId, mode: charges.mode, chain: charges.chain, toAddress: charges.toAddress })
    .from(charges)
    .where(eq(charges.id, chargeId));
  return charge;
}

/** What the database says about the authority itself. Returns why it is refused, or undefined. */
async function verifyAuthority(tx: DbOrTx, input: GateInput): Promise<string | undefined> {
  const { authorization, chargeId } = input;
  const authority = authorization.authority;
  if (authority.kind === 'owner_step_up' || authority.kind === 'member') {
    const [member] = await tx
      .select({ role: merchantMembers.role })
      .from(merchantMembers)
      .where(and(eq(merchantMembers.merchantId, authority.merchantId), eq(merchantMembers.userId, authority.userId)));
    if (!member) return 'Only a member of the merchant may move its funds.';
    if (authority.kind === 'owner_step_up' && member.role !== 'owner') return 'Only an owner of the merchant may approve this transfer.';
  }
  if ((authority.kind === 'owner_step_up' || authority.kind === 'member' || authority.kind === 'api_key') && chargeId) {
    const charge = await chargeOf(tx, chargeId);
    if (!charge || charge.merchantId !== authority.merchantId) return 'The charge is not this merchant’s.';
  }
  if (authority.kind === 'payer_allowance') return verifyAllowance(tx, authority, input);
  return undefined;
}

/**
 * The allowance, read under its row lock (held to the end of the recording transaction): a second purchase
 * under it waits here until the first is recorded or rolled back, then counts it — two purchases can never
 * both fit in the last of the budget, whatever locks the caller holds.
 */
async function verifyAllowance(
  tx: DbOrTx,
  authority: { userId: string; allowanceId: string },
  { prepared: movement, chargeId }: GateInput,
): Promise<string | undefined> {
  const [allowance] = await tx.select().from(spendingAllowances).where(eq(spendingAllowances.id, authority.allowanceId)).for('update');
  if (!allowance || allowance.userId !== authority.userId) return 'No such spending allowance of this user.';
  const now = new Date();
  if (allowance.revokedAt) return 'The spending allowance was revoked.';
  if (allowance.expiresAt <= now) return 'The spending allowance has expired.';
  const charge = await chargeOf(tx, chargeId);
  if (!charge || charge.merchantId !== allowance.merchantId) return 'The spending allowance is for another merchant’s charges.';
  if (allowance.chain !== movement.chain || !same(allowance.tokenAddress, movement.spend.token.address))
    return 'The spending allowance is for another token.';
  const spent = await allowanceSpent(tx, { allowanceId: allowance.id, userId: allowance.userId, now });
  if (spent + movement.spend.amount > allowance.amountPerDayBaseUnits)
    return 'The purchase is above what is left of the spending allowance today.';
  return undefined;
}

/** Whether the movement's call moves exactly `spend` to its recipient (a native transfer or an ERC-20 transfer). */
function isPlainTransfer(movement: TransferMovement): boolean {
  const { call, spend } = movement;
  if (!call) return true; // Solana: the sweep's instructions are built from spend itself (sweep-solana.ts).
  if (!isAddress(spend.recipient)) return false;
  if (spend.token.isNative) return call.data === undefined && same(call.to, spend.recipient) && call.value === spend.amount;
  if (call.value !== 0n || !call.data || !same(call.to, spend.token.address)) return false;
  try {
    const decoded = decodeFunctionData({ abi: erc20Abi, data: call.data });
    return decoded.functionName === 'transfer' && same(decoded.args[0], spend.recipient) && decoded.args[1] === spend.amount;
  } catch {
    return false;
  }
}

async function verifyDestination(tx: DbOrTx, input: GateInput): Promise<string | undefined> {
  const { prepared: movement, authorization } = input;
  const destination = authorization.destination;
  const recipient = movement.spend.recipient;
  const valueClasses: DestinationClass[] = [
    'charge_deposit',
    'merchant_wallet',
    'charge_payee',
    'original_payer',
    'claim_address',
    'owner_approved',
    'sponsored_sender',
    'any_address',
    'recovery_address',
  ];
  // A value transfer's call must move what it says to whom it says: a caller cannot name the payer and sign a transfer to someone else.
  if (valueClasses.includes(destination.class) && !isPlainTransfer(movement))
    return 'The transaction does not move the value to the recipient it names.';

  switch (destination.class) {
    case 'charge_deposit': {
      const charge = await chargeOf(tx, input.chargeId);
      if (!charge || charge.chain !== movement.chain) return 'A payment goes to a charge on its own network.';
      const [deposit] = await tx.select().from(depositAddresses).where(eq(depositAddresses.chargeId, charge.id));
      if (!same(deposit?.address, recipient)) return 'A payment goes to its charge’s deposit address only.';
      if (input.authorization.authority.kind === 'payer_pin' || input.authorization.authority.kind === 'payer_allowance') {
        if (!(await isUserWallet(tx, input.authorization.authority.userId, movement.from)))
          return 'A payer pays from their own wallet only.';
      } else if (!(await isAnyUserWallet(tx, movement.from))) return 'An order pays from the buyer’s wallet only.';
      return undefined;
    }
    case 'merchant_wallet': {
      const charge = await chargeOf(tx, input.chargeId);
      if (!charge || charge.toAddress !== null) return 'Only a charge without a toAddress is swept to the merchant wallet.';
      if (!(await isMerchantWallet(tx, charge.merchantId, recipient))) return 'A sweep goes to the charge’s merchant wallet only.';
      return (await isDepositOf(tx, charge.id, movement.from)) ? undefined : 'A sweep leaves its charge’s deposit address only.';
    }
    case 'charge_payee': {
      const charge = await chargeOf(tx, input.chargeId);
      if (!charge || !same(charge.toAddress, recipient)) return 'A sweep goes to the charge’s toAddress only.';
      return (await isDepositOf(tx, charge.id, movement.from)) ? undefined : 'A sweep leaves its charge’s deposit address only.';
    }
    case 'original_payer': {
      const charge = await chargeOf(tx, input.chargeId);
      if (!charge) return 'A refund names its charge.';
      if (!(await paidCharge(tx, charge.id, recipient)))
        return 'That address never paid this charge: a refund goes back to the payer (another address needs an owner’s approval).';
      return (await holdsChargeFunds(tx, charge, movement.from)) ? undefined : 'A refund is paid from the charge’s own funds only.';
    }
    case 'claim_address': {
      // The payer chose the address on the claim link; the refunds domain records it on the claim (the
      // refund row) before asking to pay it, so the gate checks the recipient against that row.
      const authority = authorization.authority;
      if (authority.kind !== 'payer_claim' || authority.claimId !== destination.claimId)
        return 'A claim address is chosen by the payer on the claim link only.';
      const [claim] = await tx
        .select({ chargeId: refunds.chargeId, destination: refunds.destination, claimStatus: refunds.claimStatus })
        .from(refunds)
        .where(eq(refunds.id, destination.claimId));
      if (!claim || claim.claimStatus !== 'claimed' || claim.chargeId !== input.chargeId) return 'No completed claim of this charge.';
      if (!claim.destination || !same(claim.destination, recipient)) return 'The recipient is not the address the payer chose.';
      return (await holdsChargeFunds(tx, (await chargeOf(tx, claim.chargeId))!, movement.from))
        ? undefined
        : 'A refund is paid from the charge’s own funds only.';
    }
    case 'owner_approved': {
      const authority = authorization.authority;
      if (authority.kind !== 'owner_step_up') return 'Only an owner’s step-up approves an address.';
      if (!same(destination.address, recipient)) return 'The recipient is not the address the owner approved.';
      const fromMerchant =
        (await isMerchantWallet(tx, authority.merchantId, movement.from)) ||
        (input.chargeId
          ? (await chargeOf(tx, input.chargeId))?.merchantId === authority.merchantId &&
            (await isDepositOf(tx, input.chargeId, movement.from))
          : false);
      return fromMerchant ? undefined : 'An owner approves transfers from their merchant’s own wallets only.';
    }
    case 'item_contract':
      return verifyItemContract(tx, input);
    case 'swap_router':
      return verifySwapRouter(tx, input);
    case 'sponsored_sender':
      // The tank pays gas for wallets whose keys we hold (a user's, a merchant's, a deposit address), nobody else.
      return (await isServiceAddress(tx, recipient)) ? undefined : 'The gas tank tops up the service’s own wallets only.';
    case 'any_address': {
      const authority = authorization.authority;
      if (authority.kind !== 'payer_pin') return 'Only a user’s own PIN sends to any address.';
      return (await isUserWallet(tx, authority.userId, movement.from)) ? undefined : 'A user sends from their own wallet only.';
    }
    case 'recovery_address': {
      // The request row says it all: approved by an operator other than its requester, this deposit, token, amount and address.
      const authority = authorization.authority;
      if (authority.kind !== 'two_operators' || authority.recoveryId !== destination.recoveryId)
        return 'A recovery goes to the address of its own approved request only.';
      const [recovery] = await tx.select().from(depositRecoveries).where(eq(depositRecoveries.id, destination.recoveryId));
      if (!recovery || !recovery.approvedBy || recovery.approvedBy === recovery.requestedBy)
        return 'A recovery needs the approval of a second operator.';
      if (recovery.chain !== movement.chain || recovery.chargeId !== input.chargeId || !same(recovery.fromAddress, movement.from))
        return 'A recovery leaves the deposit address of its request only.';
      if (!same(recovery.toAddress, recipient) || !same(recovery.tokenAddress, movement.spend.token.address))
        return 'The recipient or token is not the one the operators approved.';
      if (recovery.amountBaseUnits !== movement.spend.amount) return 'The amount is not the one the operators approved.';
      return (await isDepositOf(tx, recovery.chargeId, movement.from)) ? undefined : 'A recovery leaves a deposit address only.';
    }
    case 'self': {
      const call = movement.call;
      return call && same(call.to, movement.from) && call.value === 0n && call.data === undefined
        ? undefined
        : 'A cancel is a 0-value transfer to the sender itself.';
    }
  }
}

async function isUserWallet(tx: DbOrTx, userId: string, address: string): Promise<boolean> {
  const [row] = await tx
    .select({ id: wallets.id })
    .from(wallets)
    .where(and(eq(wallets.userId, userId), addressIs(wallets.address, address)));
  return !!row;
}

async function isAnyUserWallet(tx: DbOrTx, address: string): Promise<boolean> {
  const [row] = await tx.select({ userId: wallets.userId }).from(wallets).where(addressIs(wallets.address, address));
  return !!row?.userId;
}

async function isMerchantWallet(tx: DbOrTx, merchantId: string, address: string): Promise<boolean> {
  const [row] = await tx
    .select({ id: wallets.id })
    .from(wallets)
    .where(and(eq(wallets.merchantId, merchantId), addressIs(wallets.address, address)));
  return !!row;
}

async function isDepositOf(tx: DbOrTx, chargeId: string, address: string): Promise<boolean> {
  const [row] = await tx
    .select({ address: depositAddresses.address })
    .from(depositAddresses)
    .where(eq(depositAddresses.chargeId, chargeId));
  return same(row?.address, address);
}

async function isServiceAddress(tx: DbOrTx, address: string): Promise<boolean> {
  const [wallet] = await tx.select({ id: wallets.id }).from(wallets).where(addressIs(wallets.address, address));
  if (wallet) return true;
  const [deposit] = await tx
    .select({ id: depositAddresses.chargeId })
    .from(depositAddresses)
    .where(addressIs(depositAddresses.address, address));
  return !!deposit;
}

/** A refund is paid from where the charge's funds are: its deposit address, or its merchant's wallet. */
async function holdsChargeFunds(tx: DbOrTx, charge: { id: string; merchantId: string }, from: string): Promise<boolean> {
  return (await isDepositOf(tx, charge.id, from)) || (await isMerchantWallet(tx, charge.merchantId, from));
}

/**
 * Whether `address` paid the charge: the sender of a confirmed payment to it, or the Chargeport wallet
 * whose confirmed balance payment paid it (balance and in-app payments).
 */
async function paidCharge(tx: DbOrTx, chargeId: string, address: string): Promise<boolean> {
  const [payment] = await tx
    .select({ id: payments.id })
    .from(payments)
    .where(and(eq(payments.chargeId, chargeId), eq(payments.status, 'confirmed'), addressIs(payments.fromAddress, address)))
    .limit(1);
  if (payment) return true;
  const [balance] = await tx
    .select({ id: outboundTransfers.id })
    .from(outboundTransfers)
    .where(
      and(
        eq(outboundTransfers.chargeId, chargeId),
        eq(outboundTransfers.purpose, 'balance_payment'),
        eq(outboundTransfers.status, 'confirmed'),
        addressIs(outboundTransfers.fromAddress, address),
      ),
    )
    .limit(1);
  return !!balance;
}

/** A fulfilment calls a contract its charge's merchant registered in the charge's mode and network, never a token-moving function, from the merchant wallet. */
async function verifyItemContract(tx: DbOrTx, input: GateInput): Promise<string | undefined> {
  const call = input.prepared.call;
  if (!call) return 'A contract call needs an EVM network.';
  const charge = await chargeOf(tx, input.chargeId);
  if (!charge) return 'A fulfilment names its charge.';
  // A fulfilment moves no native coin: the wallet's coin pays gas, never an item.
  if (call.value !== 0n || input.prepared.spend.amount !== 0n) return 'A fulfilment call moves no value.';
  const selector = (call.data ?? '0x').slice(0, 10).toLowerCase() as Hex;
  if (selector.length !== 10) return 'A fulfilment calls a function of the contract.';
  if (TOKEN_MOVING_SELECTORS.has(selector)) return 'A fulfilment may not call a function that moves or approves tokens.';
  const [contract] = await tx
    .select({ id: merchantContracts.id })
    .from(merchantContracts)
    .where(
      and(
        eq(merchantContracts.merchantId, charge.merchantId),
        eq(merchantContracts.mode, charge.mode),
        eq(merchantContracts.chain, input.prepared.chain),
        addressIs(merchantContracts.address, call.to),
      ),
    );
  if (!contract) return 'A fulfilment calls a contract the merchant registered on this network only.';
  return (await isMerchantWallet(tx, charge.merchantId, input.prepared.from))
    ? undefined
    : 'A fulfilment is sent from the merchant’s service wallet only.';
}

/**
 * A swap leg, from a wallet of ours: the swap calls the configured router and delivers to the charge's
 * deposit address; its approval approves exactly that router on the pair's funding token.
 */
async function verifySwapRouter(tx: DbOrTx, input: GateInput): Promise<string | undefined> {
  const call = input.prepared.call;
  if (!call || call.value !== 0n || !call.data) return 'A swap leg is a call to the swap router.';
  if (!(await isServiceAddress(tx, input.prepared.from))) return 'A swap is sent from the service’s own wallets only.';
  const pairs = configuredSwapPairs().filter((p) => p.chain === input.prepared.chain);
  if (input.purpose === 'swap') {
    if (!pairs.some((p) => same(p.router, call.to))) return 'A swap calls the configured swap router only.';
    try {
      const decoded = decodeFunctionData({ abi: uniswapV2Router02Abi, data: call.data });
      if (decoded.functionName === 'swapTokensForExactTokens' && input.chargeId && (await isDepositOf(tx, input.chargeId, decoded.args[3])))
        return undefined;
    } catch {
      // another function: refused below
    }
    return 'A swap delivers to its charge’s deposit address only.';
  }
  const pair = pairs.find((p) => same(p.funding.address, call.to));
  if (!pair) return 'A swap approval is on the pair’s funding token only.';
  try {
    const decoded = decodeFunctionData({ abi: erc20Abi, data: call.data });
    if (decoded.functionName === 'approve' && getAddress(decoded.args[0]) === getAddress(pair.router)) return undefined;
  } catch {
    // not an approve: refused below
  }
  return 'A swap approval approves the configured swap router only.';
}
