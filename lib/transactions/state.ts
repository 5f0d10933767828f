/**
 * The life of a transaction the service sends (docs/adr/0016-one-transaction-engine.md):
 *
 *   signed ──► broadcast ──► included ◄──► confirmed
 *     │           │  ▲          │    (re-opened: a re-organisation deeper than the depth went past its block)
 *     │           │  └──────────┘   (its block left the chain: re-org; it is sent again)
 *     ├───────────┴──────────────► failed     (reverted at depth, or its nonce provably used by another
 *     └──────────────────────────► included    transaction at depth — our own cancel included)
 *
 * `signed`: recorded (nonce, bytes) and not yet accepted by a node — nothing of it has left the server,
 * or a node refused it. `broadcast`: a node accepted it. `included`: a receipt exists in a block that is
 * not yet deep enough. `confirmed` / `failed` are written at the chain's depth; `failed` is final.
 * `confirmed` is final but for one move: when the block scanner finds a re-organisation that reaches back
 * past its block, it is re-opened to `included` (./reopen-confirmed-transfers.ts, docs/adr/0036) and
 * followed as any included transfer — still mined: confirmed again; gone: `broadcast`, the same signed
 * bytes sent again (its nonce: at most once); mined but reverted: `failed`, a reversal. Never
 * `confirmed → failed` or `confirmed → broadcast` in one jump: the way back always passes `included`.
 *
 * Solana transfers (lib/transactions/solana/solana-transfers.ts) follow the same table: finality writes
 * `included` then `confirmed` / `failed` in one transaction; a blockhash that expired unlanded ends `failed`.
 *
 * One transfer may be signed several times at its nonce (an attempt each): a fee bump for one stuck under
 * the base fee, or a 0-value self-transfer ("cancel") for one that can never be broadcast. Exactly one of
 * them can be mined, so the transfer is one movement of value whichever lands. A Solana transfer has no nonce:
 * it is signed again only once its previous transaction provably can never land (its blockhash expired at
 * 'finalized', not found), so at most one of its transactions is ever live.
 */
import { defineStateMachine } from '@/lib/state-machine';

export const TRANSFER_STATUSES = ['signed', 'broadcast', 'included', 'confirmed', 'failed'] as const;
export type TransferStatus = (typeof TRANSFER_STATUSES)[number];

/**
 * balance_payment: consumer's service wallet → deposit address; sweep: deposit address → payee;
 * gas_topup: the gas tank pays the exact gas a transfer needs (a platform cost); withdrawal: merchant
 * wallet → external address; wallet_send: a user's wallet → any address; refund: back to a payer;
 * swap_approve / swap: the swap on-ramp's router calls; fulfilment: a merchant's service wallet calls its
 * game contract when a charge succeeds (lib/contracts/, a 0-value contract call).
 */
export const TRANSFER_PURPOSES = [
  'balance_payment',
  'sweep',
  'gas_topup',
  'withdrawal',
  'wallet_send',
  'refund',
  'swap_approve',
  'swap',
  'fulfilment',
  // An operator's return of funds from a deposit address, approved by a second operator (lib/ledger/recover-deposit.ts).
  'recovery',
] as const;
export type TransferPurpose = (typeof TRANSFER_PURPOSES)[number];

/** new_blockhash: a Solana transfer whose blockhash expired unlanded, signed again (lib/transactions/solana/resign-solana-transfer.ts). */
export const ATTEMPT_KINDS = ['original', 'fee_bump', 'cancel', 'new_blockhash'] as const;
export type AttemptKind = (typeof ATTEMPT_KINDS)[number];

export const transferMachine = defineStateMachine({
  name: 'transfer',
  statuses: TRANSFER_STATUSES,
  transitions: {
    signed: ['broadcast', 'included', 'failed'],
    broadcast: ['included', 'failed'],
    included: ['confirmed', 'failed', 'broadcast'],
    // Only a deep re-organisation re-opens a confirmed transfer (./reopen-confirmed-transfers.ts).
    confirmed: ['included'],
    failed: [],
  },
});

/** Statuses whose value has not reached the chain's latest state: they still spend from the sender's balance. */
export const IN_FLIGHT_STATUSES = ['signed', 'broadcast'] as const satisfies readonly TransferStatus[];

/** Statuses the reconciler still follows. */
const OPEN_STATUSES = ['signed', 'broadcast', 'included'] as const satisfies readonly TransferStatus[];

export function isOpen(status: TransferStatus): boolean {
  return (OPEN_STATUSES as readonly TransferStatus[]).includes(status);
}
