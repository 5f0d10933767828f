/**
 * Everything the hosted checkout page shows, in one call: the charge's public view, its live status, the
 * ways to pay on offer now (and the one suggested first), the buyer's balance and PIN state, the card
 * providers for the buyer's country. The page (app/checkout/[chargeId]/page.tsx) only renders this.
 */
import { checkoutAllowance, type CheckoutAllowance } from '@/lib/allowances/checkout-allowance';
import 'server-only';
import QRCode from 'qrcode';
import { pinStatus } from '@/lib/accounts/pin-status';
import { getSessionUser } from '@/lib/auth/session';
import { CHAINS } from '@/lib/chains/registry';
import { env } from '@/lib/env';
import { complianceCountryFrom } from '@/lib/geo/compliance-country';
import { countryFromRequest, countryOptions } from '@/lib/geo/country';
import { formatAmount, parseAmount } from '@/lib/money';
import { fiatPaymentOptions, type FiatPaymentOption } from '@/lib/onramp/fiat-payment-options';
import { dueUsdCents, latestFiatOrder, minimumPurchasePreview, type MinimumPurchasePreview } from '@/lib/onramp/pay-charge-with-fiat';
import { loadCheckoutStatus, type CheckoutStatus } from '@/lib/payments/checkout-status';
import { approximateUsd, formatUsd } from '@/lib/pricing/approximate-usd';
import { swapPairFor } from '@/lib/chains/swap-pairs';
import { listWallets } from '@/lib/wallets/list-wallets';
import { uncachedBalance } from '@/lib/wallets/cached-balance';
import { checkoutPath, checkoutPopupOrigin } from '@/lib/charges/checkout-popup';
import { tokenOfCharge } from '@/lib/charges/charge-token';
import { loadCheckoutView, type CheckoutView } from '@/lib/charges/checkout-view';

/** The ways to pay, as the checkout's tabs name them. */
export type PaymentWay = 'balance' | 'wallet' | 'swap' | 'card';

/** The buyer's Chargeport balance, signed in with a verified e-mail. */
type BalanceOffer =
  | { kind: 'signed_out'; signInUrl: string }
  /** Part of the charge arrived: the balance form pays the whole total, so it is not offered. */
  | { kind: 'part_paid' }
  | { kind: 'needs_pin'; setPinUrl: string }
  | { kind: 'unreadable' }
  | {
      kind: 'ready';
      balance: string;
      enough: boolean;
      /** What is missing (0 when enough), exact decimal text. */
      shortfall: string;
      walletAddress: string;
      /** The on-ramp for the shortfall: only when a card provider serves the buyer here. */
      onrampUrl: string | null;
      /** A spending allowance for this merchant covers the charge: it is paid with one tap, no PIN (ADR 0034). */
      allowance: CheckoutAllowance | null;
    };

export interface CheckoutPage {
  view: CheckoutView;
  status: CheckoutStatus | undefined;
  /** The charge may be paid now (nothing in flight, before expiresAt, something due, chain served). */
  payable: boolean;
  popupOrigin: string | undefined;
  /** The amount still due, exact decimal text, and in base units (what wallets are asked for). */
  due: string;
  dueBaseUnits: string;
  isPartPaid: boolean;
  qrSvg: string | null;
  chain: { family: 'evm' | 'solana'; evmChainId: number | null };
  /** "Price $4.90 · 1 USDC = $1 (stablecoin)" or "≈ $4.90"; null when no price is known. */
  usdLine: { kind: 'priced' | 'approximate'; text: string } | null;
  country: string;
  /** The server-side location (the configured CDN header), for compliance rules; null when unknown. */
  complianceCountry: string | null;
  countries: { code: string; name: string }[];
  countryName: string;
  signedIn: boolean;
  signInUrl: string;
  balance: BalanceOffer;
  fiat: {
    options: FiatPaymentOption[];
    latestOrder: Awaited<ReturnType<typeof latestFiatOrder>>;
    minimumPreviews: Record<string, MinimumPurchasePreview | undefined>;
  };
  /** The ways to pay on offer, the suggested one first. */
  ways: PaymentWay[];
  /** WalletConnect's project id when configured (the button is hidden without it). */
  walletConnectProjectId: string | null;
  canCancel: boolean;
}

export async function loadCheckoutPage(input: {
  chargeId: string;
  query: Record<string, string | string[] | undefined>;
  requestHeaders: Headers;
  countryCookie: string | undefined;
}): Promise<CheckoutPage | undefined> {
  const view = await loadCheckoutView(input.chargeId);
  if (!view) return undefined;
  // Opened by the SDK's pay(): report to the opener and close instead of redirecting (checkout-popup.ts).
  const popupOrigin = checkoutPopupOrigin(input.query.mode, input.query.origin);
  const [status, user] = await Promise.all([loadCheckoutStatus(view.id), getSessionUser().catch(() => undefined)]);
  // Every way to pay is offered only while the charge may be paid now, for the amount still due; a charge
  // whose chain is no longer served gets none: nothing would see a payment.
  const payable = (status?.payable ?? false) && view.isChainServed;
  const chainInfo = CHAINS[view.chain];
  const token = tokenOfCharge({
    chain: view.chain,
    tokenAddress: view.token.address,
    tokenSymbol: view.token.symbol,
    tokenDecimals: view.token.decimals,
  });
  const { country } = countryFromRequest(input.requestHeaders, input.countryCookie);
  const countries = countryOptions();
  const dueBaseUnits = status ? baseUnitsOf(status.due, view.token.decimals) : BigInt(view.totalBaseUnits);
  const isPartPaid = dueBaseUnits < BigInt(view.totalBaseUnits);
  const due = status?.due ?? view.total;
  const signedIn = !!user?.emailVerifiedAt;
  const signInUrl = `/signin?callbackUrl=${encodeURIComponent(checkoutPath(view.id, popupOrigin))}`;
  const chargeToken = {
    chain: view.chain,
    tokenAddress: view.token.address,
    tokenSymbol: view.token.symbol,
    tokenDecimals: view.token.decimals,
  };

  const dueCents = payable ? await dueUsdCents(chargeToken, dueBaseUnits).catch(() => undefined) : undefined;
  const [usd, fiatOptions, latestOrder, qrSvg] = await Promise.all([
    token && !view.pricing ? approximateUsd(token, BigInt(view.totalBaseUnits)).catch(() => undefined) : undefined,
    payable
      ? fiatPaymentOptions({
          country,
          chain: view.chain,
          tokenSymbol: view.token.symbol,
          ...(dueCents !== undefined ? { dueUsdCents: dueCents } : {}),
          expiresAt: new Date(view.expiresAt),
          // Below a provider's minimum, the minimum can go to the buyer's wallet, which pays the charge (ADR 0019).
          canBuyMinimum: true,
        })
      : [],
    payable ? latestFiatOrder(view.id) : undefined,
    payable && status?.deposit ? QRCode.toString(status.deposit.uri, { type: 'svg', margin: 1, width: 176 }) : null,
  ]);
  const minimumPreviews = Object.fromEntries(
    await Promise.all(
      fiatOptions
        .filter((option) => option.buyMinimum && option.methods[0])
        .map(async (option) => [
          option.providerId,
          await minimumPurchasePreview({
            providerId: option.providerId,
            paymentMethod: option.methods[0]!,
            country,
            chain: view.chain,
            tokenSymbol: view.token.symbol,
            due,
          }),
        ]),
    ),
  ) as Record<string, MinimumPurchasePreview | undefined>;
  // A card provider serves this buyer for this amount (directly, or by the minimum rule).
  const canBuyWithCard = fiatOptions.some((option) => option.available);

  let balance: BalanceOffer;
  if (isPartPaid) balance = { kind: 'part_paid' };
  else if (!user?.emailVerifiedAt) balance = { kind: 'signed_out', signInUrl };
  else if (!(await pinStatus(user.id)).isSet) {
    balance = { kind: 'needs_pin', setPinUrl: `/account/pin?${new URLSearchParams({ next: checkoutPath(view.id, popupOrigin) })}` };
  } else {
    balance = { kind: 'unreadable' };
    // The buyer's wallet of the charge's chain family: the one a balance payment comes from (pay-from-balance.ts).
    const own = payable ? (await listWallets(user.id)).find((wallet) => wallet.family === chainInfo.family) : undefined;
    // Read now, not from the wallet pages' cache: funds that just arrived must count (no indexer forgets a
    // Solana wallet's cached balance when they do).
    const units = own && token ? await uncachedBalance(view.chain, token, own.address) : undefined;
    if (units !== undefined && token && own) {
      const total = BigInt(view.totalBaseUnits);
      balance = {
        kind: 'ready',
        balance: formatAmount(units, token.decimals),
        enough: units >= total,
        shortfall: formatAmount(units >= total ? 0n : total - units, token.decimals),
        walletAddress: own.address,
        onrampUrl: canBuyWithCard
          ? `/onramp?${new URLSearchParams({ chain: view.chain, token: view.token.symbol, wallet: own.address, wallet_label: 'Your Chargeport wallet' })}`
          : null,
        allowance: await checkoutAllowance({ userId: user.id, chargeId: view.id }),
      };
    }
  }

  // One suggested way: the balance when it covers the charge, else a wallet; the others one click away.
  const ways: PaymentWay[] = [];
  if (payable) {
    const canPayFromBalance = balance.kind === 'ready' && balance.enough;
    if (canPayFromBalance) ways.push('balance');
    if (status?.deposit) ways.push('wallet');
    if (swapPairFor(view.chain, view.token.address)) ways.push('swap');
    ways.push('card');
    if (!canPayFromBalance) ways.push('balance');
  }

  return {
    view,
    status,
    payable,
    popupOrigin,
    due,
    dueBaseUnits: dueBaseUnits.toString(),
    isPartPaid,
    qrSvg,
    chain: { family: chainInfo.family, evmChainId: chainInfo.evmChainId ?? null },
    usdLine: view.pricing
      ? {
          kind: 'priced',
          text: `Price ${formatUsd(usdCentsText(view.pricing.usd))} · ${
            view.pricing.rateSource === 'par'
              ? `1 ${view.token.symbol} = $1 (stablecoin)`
              : `1 ${view.token.symbol} = $${view.pricing.rate}, locked when the charge was created`
          }`,
        }
      : usd
        ? { kind: 'approximate', text: `≈ ${formatUsd(usd)}` }
        : null,
    country,
    complianceCountry: complianceCountryFrom(input.requestHeaders),
    countries,
    countryName: countries.find((c) => c.code === country)?.name ?? country,
    signedIn,
    signInUrl,
    balance,
    fiat: { options: fiatOptions, latestOrder, minimumPreviews },
    ways,
    walletConnectProjectId: env().WALLETCONNECT_PROJECT_ID ?? null,
    canCancel: status?.status === 'pending' && (!!view.cancelUrl || !!popupOrigin),
  };
}

/** A decimal text of the checkout status back in base units (zero stays zero). */
function baseUnitsOf(amount: string, decimals: number): bigint {
  const parsed = parseAmount(amount, decimals);
  return parsed.ok ? parsed.baseUnits : 0n;
}

/** "4.9" → "4.90": formatUsd wants cents. */
function usdCentsText(amount: string): string {
  const [whole, fraction = ''] = amount.split('.');
  return `${whole}.${fraction.padEnd(2, '0')}`;
}
