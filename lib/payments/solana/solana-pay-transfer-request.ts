/**
 * Solana Pay transfer requests (https://docs.solanapay.com/spec, "Specification: Transfer Request"):
 *
 *   solana:<recipient>?amount=<amount>&spl-token=<mint>&reference=<ref>…&label=<label>&message=<message>&memo=<memo>
 *
 *  - `recipient` is a wallet (never an associated token account); for a token the wallet derives the
 *    recipient's ATA from `spl-token`, which is omitted for native SOL.
 *  - `amount` is in user units (SOL, not lamports; a token's uiAmountString): digits, an optional
 *    fraction with a leading `0` below one, no exponent. Written here from base units by
 *    formatAmount, so it is exact and has no trailing zeros.
 *  - every `reference` is a base58 32-byte key the wallet adds, in order, as a read-only non-signer
 *    account of the transfer instruction; it is how the payment is found (getSignaturesForAddress).
 *  - label, message and memo are encodeURIComponent-encoded UTF-8 (spaces as %20, not +).
 *
 * Parameters are written in the spec's order, like @solana/pay's encodeURL.
 */
import { isAddress } from '@solana/kit';
import { formatAmount } from '@/lib/money';

const SCHEME = 'solana:';
/** The spec's amount grammar: no sign, no exponent, a leading digit before any `.`. */
const AMOUNT_PATTERN = /^(\d+)(?:\.(\d+))?$/;
/** Fields the spec allows at most once (`reference` may repeat). */
const SINGLE_FIELDS = ['amount', 'spl-token', 'label', 'message', 'memo'] as const;

export interface SolanaPayTransferRequestInput {
  /** Base58 wallet address of the payee (a native SOL account). */
  recipient: string;
  /** The amount in base units (lamports, or the token's smallest unit) with the token's decimals. */
  amountBaseUnits: bigint;
  decimals: number;
  /** Base58 mint address; omitted for native SOL. */
  splToken?: string;
  /** Base58 32-byte reference keys, in the order the wallet must attach them. */
  references: readonly string[];
  label?: string;
  message?: string;
  memo?: string;
}

/** The transfer request URI for a wallet (QR code or deep link). Throws on malformed input: a programming error. */
export function solanaPayTransferRequest(input: SolanaPayTransferRequestInput): string {
  assertAddress('recipient', input.recipient);
  if (input.splToken !== undefined) assertAddress('splToken', input.splToken);
  for (const reference of input.references) assertAddress('reference', reference);
  if (!Number.isInteger(input.decimals) || input.decimals < 0 || input.decimals > 255)
    throw new Error(`Invalid token decimals: ${input.decimals}.`);
  if (input.amountBaseUnits < 0n) throw new Error('A Solana Pay amount cannot be negative.');

  const params: [string, string][] = [['amount', formatAmount(input.amountBaseUnits, input.decimals)]];
  if (input.splToken !== undefined) params.push(['spl-token', input.splToken]);
  for (const reference of input.references) params.push(['reference', reference]);
  // Empty strings are left out, as @solana/pay does: a wallet would show an empty label otherwise.
  if (input.label) params.push(['label', input.label]);
  if (input.message) params.push(['message', input.message]);
  if (input.memo) params.push(['memo', input.memo]);
  return `${SCHEME}${input.recipient}?${params.map(([key, value]) => `${key}=${encodeURIComponent(value)}`).join('&')}`;
}

interface ParsedSolanaPayTransferRequest {
  recipient: string;
  /** The amount exactly as written (user units), if present. */
  amount?: string;
  /** The amount in base units, when `decimals` was given to the parser. */
  amountBaseUnits?: bigint;
  splToken?: string;
  references: string[];
  label?: string;
  message?: string;
  memo?: string;
}

export type ParseSolanaPayTransferRequestResult =
  | { ok: true; request: ParsedSolanaPayTransferRequest }
  | {
      ok: false;
      reason:
        | 'format'
        | 'not_a_transfer_request'
        | 'recipient_invalid'
        | 'duplicate_field'
        | 'amount_invalid'
        | 'too_many_decimals'
        | 'spl_token_invalid'
        | 'reference_invalid';
    };

/**
 * Reads a transfer request back (for tests and round trips; wallets are the real parsers). With
 * `decimals`, the amount is also converted to base units and more fractional digits than the token
 * has are refused, as the spec requires of wallets.
 */
export function parseSolanaPayTransferRequest(uri: string, options: { decimals?: number } = {}): ParseSolanaPayTransferRequestResult {
  let url: URL;
  let params: Map<string, string[]>;
  try {
    url = new URL(uri);
    params = decodeQuery(url.search);
  } catch {
    return { ok: false, reason: 'format' };
  }
  if (url.protocol !== SCHEME) return { ok: false, reason: 'format' };
  // `solana:<https link>` is a transaction request (interactive), not a transfer request.
  if (/^https(:|%3A)/i.test(url.pathname)) return { ok: false, reason: 'not_a_transfer_request' };
  if (!isAddress(url.pathname)) return { ok: false, reason: 'recipient_invalid' };
  if (SINGLE_FIELDS.some((field) => (params.get(field)?.length ?? 0) > 1)) return { ok: false, reason: 'duplicate_field' };
  const param = (field: string): string | undefined => params.get(field)?.[0];

  const request: ParsedSolanaPayTransferRequest = { recipient: url.pathname, references: params.get('reference') ?? [] };
  const amount = param('amount');
  if (amount !== undefined) {
    const match = AMOUNT_PATTERN.exec(amount);
    if (!match) return { ok: false, reason: 'amount_invalid' };
    request.amount = amount;
    if (options.decimals !== undefined) {
      const fraction = match[2] ?? '';
      if (fraction.length > options.decimals) return { ok: false, reason: 'too_many_decimals' };
      request.amountBaseUnits = BigInt((match[1] ?? '0') + fraction.padEnd(options.decimals, '0'));
    }
  }
  const splToken = param('spl-token');
  if (splToken !== undefined) {
    if (!isAddress(splToken)) return { ok: false, reason: 'spl_token_invalid' };
    request.splToken = splToken;
  }
  if (!request.references.every((reference) => isAddress(reference))) return { ok: false, reason: 'reference_invalid' };
  for (const field of ['label', 'message', 'memo'] as const) {
    const value = param(field);
    if (value) request[field] = value;
  }
  return { ok: true, request };
}

/**
 * The query as the spec reads it: `&`-separated `key=value` pairs, each side URL-decoded with
 * decodeURIComponent. (URLSearchParams would also turn `+` into a space, which the spec does not.)
 * Throws URIError on a malformed escape.
 */
function decodeQuery(search: string): Map<string, string[]> {
  const params = new Map<string, string[]>();
  for (const pair of search.replace(/^\?/, '').split('&')) {
    if (!pair) continue;
    const at = pair.indexOf('=');
    const key = decodeURIComponent(at === -1 ? pair : pair.slice(0, at));
    const value = at === -1 ? '' : decodeURIComponent(pair.slice(at + 1));
    params.set(key, [...(params.get(key) ?? []), value]);
  }
  return params;
}

function assertAddress(field: string, value: string): void {
  if (!isAddress(value)) throw new Error(`Solana Pay ${field} is not a base58 32-byte address: ${value}`);
}
