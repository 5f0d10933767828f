'use server';
/**
 * The on-ramp page's Buy: validates what the page sends, decides the destination on the server (the
 * link's wallet, or the signed-in buyer's own wallet — never an address the browser claims is "own"),
 * and places the order with the domain verb. Errors come back as `{ error }` (lib/api/server-actions.ts) for the page to show.
 */
import { headers } from 'next/headers';
import { z } from 'zod';
import { publicCall } from '@/lib/api/server-actions';
import { AppError } from '@/lib/errors';
import { getSessionUser } from '@/lib/auth/session';
import { CHAIN_NAMES, CHAINS } from '@/lib/chains/registry';
import { env } from '@/lib/env';
import { requestCountry } from '@/lib/geo/request-country';
import { FIAT_METHODS } from '@/lib/onramp/fiat-methods';
import { placeOnrampOrder } from '@/lib/onramp/orders/place-order';
import { consumeOnrampRateLimit } from '@/lib/rate-limit/onramp-rate-limit';
import { ONRAMP_PROVIDER_IDS } from '@/lib/onramp/providers/types';
import { listWallets } from '@/lib/wallets/list-wallets';
import { cleanWalletLabel } from '@/lib/onramp/links/onramp-params';
import { onrampSiteOrigin } from '@/lib/onramp/links/site-origin';

const placeOrderSchema = z
  .object({
    providerId: z.enum(ONRAMP_PROVIDER_IDS),
    paymentMethod: z.enum(FIAT_METHODS),
    chain: z.enum(CHAIN_NAMES),
    tokenSymbol: z.string().trim().min(1).max(16),
    cryptoAmount: z
      .string()
      .trim()
      .regex(/^\d{1,40}(?:\.\d{1,30})?$/, 'Enter an amount such as 25 or 0.5.'),
    acceptMinimum: z.boolean().default(false),
    /** The link's wallet; absent: the signed-in buyer's own wallet. */
    wallet: z.string().trim().min(1).max(128).optional(),
    walletLabel: z.string().max(512).optional(),
  })
  .strict();

export type PlaceOrderInput = z.input<typeof placeOrderSchema>;
/** What the page handles: the action's ActionResult, or its own `network` error when the call did not arrive. */
export type PlaceOrderResult =
  | { data: { orderId: string; checkoutUrl: string; checkoutKind: 'redirect' | 'embed' }; error?: undefined }
  | { data?: undefined; error: { code: string; message: string; details?: Record<string, string> } };

export const placeOnrampOrderAction = publicCall(
  async ({ ip }, input: PlaceOrderInput): Promise<{ orderId: string; checkoutUrl: string; checkoutKind: 'redirect' | 'embed' }> => {
    const parsed = placeOrderSchema.safeParse(input);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new AppError('invalid_request', issue.message, { details: { param: issue.path.join('.') } });
    }
    const order = parsed.data;
    const [user, requestHeaders] = await Promise.all([getSessionUser(), headers()]);

    let walletAddress = order.wallet;
    if (!walletAddress) {
      if (!user) throw new AppError('unauthenticated', 'Sign in to buy for your Chargeport wallet.');
      if (!user.emailVerifiedAt) throw new AppError('email_not_verified', 'Verify your e-mail first.');
      const family = CHAINS[order.chain].family;
      walletAddress = (await listWallets(user.id)).find((wallet) => wallet.family === family)?.address;
      if (!walletAddress) throw new AppError('invalid_wallet', `Your account has no ${CHAINS[order.chain].displayName} wallet.`);
    }

    await consumeOnrampRateLimit('orders', ip);
    const placed = await placeOnrampOrder({
      purpose: 'wallet_topup',
      userId: user?.id ?? null,
      providerId: order.providerId,
      paymentMethod: order.paymentMethod,
      country: (await requestCountry()).country,
      chain: order.chain,
      tokenSymbol: order.tokenSymbol,
      walletAddress,
      walletLabel: order.wallet ? cleanWalletLabel(order.walletLabel) : null,
      cryptoAmount: order.cryptoAmount,
      acceptMinimum: order.acceptMinimum,
      // Back to this order's page on the site the buyer came from; place-order fills in {orderId}.
      redirectUrl: `${onrampSiteOrigin(requestHeaders, env())}/onramp/orders/{orderId}`,
    });
    return { orderId: placed.orderId, checkoutUrl: placed.checkoutUrl, checkoutKind: placed.checkoutKind };
  },
  { log: 'placing an on-ramp order failed', message: 'The order could not be placed. Try again in a moment.' },
);
