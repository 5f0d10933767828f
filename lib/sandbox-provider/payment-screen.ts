/** What the payment screen (/sandbox-provider/pay/[sessionId]) shows for a session, as display text. */
import { getChain, isChainName } from '@/lib/chains/registry';
import type { SandboxPaymentMethod } from '@/lib/db/schema/sandbox-provider';
import { formatAmount, parseAmount } from '@/lib/money';
import { findSession } from './find-session';
import { isExpired } from './state';

type ScreenState = 'open' | 'authenticating' | 'expired' | 'processing' | 'completed' | 'failed';

export interface PaymentScreen {
  sessionId: string;
  state: ScreenState;
  tokenAmount: string;
  tokenSymbol: string;
  chainName: string;
  walletAddress: string;
  /** 0x1234…abcd */
  walletShort: string;
  /** "$26.88", "€12.40" */
  total: string;
  paymentMethod: SandboxPaymentMethod;
  redirectUrl: string;
  expiresAt: string;
  failureMessage?: string;
  /** The provider the partner shows this checkout as (the sandbox stands in for it). */
  standingInFor: string | null;
}

const CURRENCY_SYMBOLS: Readonly<Record<string, string>> = { USD: '$', EUR: '€', GBP: '£' };

const FAILURE_MESSAGES: Readonly<Record<string, string>> = {
  card_declined: 'Your card was declined. No money was taken.',
  authentication_failed: 'The 3-D Secure authentication failed. No money was taken.',
};

/** What the buyer reads for a failure reason; anything after payment is a delivery problem, refunded. */
export function failureMessage(reason: string | null | undefined): string {
  return FAILURE_MESSAGES[reason ?? ''] ?? 'The payment went through but the tokens could not be delivered. It will be refunded.';
}

/** An exact fiat amount as "$26.88" (at least two decimals, never through a float). */
function formatFiat(amount: string, currency: string): string {
  const parsed = parseAmount(amount, 8);
  const [whole, fraction = ''] = (parsed.ok ? formatAmount(parsed.baseUnits, 8) : '0').split('.');
  const text = `${whole}.${fraction.padEnd(2, '0')}`;
  const symbol = CURRENCY_SYMBOLS[currency];
  return symbol ? `${symbol}${text}` : `${text} ${currency}`;
}

function shortenAddress(address: string): string {
  return address.length > 12 ? `${address.slice(0, 6)}…${address.slice(-4)}` : address;
}

export async function loadPaymentScreen(sessionId: string, now = new Date()): Promise<PaymentScreen | undefined> {
  const session = await findSession(sessionId);
  if (!session) return undefined;
  const state: ScreenState = isExpired(session, now) ? 'expired' : session.status;
  return {
    sessionId: session.id,
    state,
    standingInFor: session.standingInFor,
    tokenAmount: formatAmount(session.cryptoBaseUnits, session.tokenDecimals),
    tokenSymbol: session.tokenSymbol,
    chainName: isChainName(session.chain) ? getChain(session.chain).displayName : session.chain,
    walletAddress: session.walletAddress,
    walletShort: shortenAddress(session.walletAddress),
    total: formatFiat(session.fiatAmount, session.fiatCurrency),
    paymentMethod: session.paymentMethod,
    redirectUrl: session.redirectUrl,
    expiresAt: session.expiresAt.toISOString(),
    ...(state === 'failed' ? { failureMessage: failureMessage(session.failureReason) } : {}),
  };
}
