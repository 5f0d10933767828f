/**
 * Signed on-ramp links (issue 14): a merchant that wants its `wallet_label` shown as verified signs
 * the link with its on-ramp link key (Dashboard → Settings → On-ramp links; sealed at rest,
 * lib/onramp/onramp-link-key.ts). The signature covers the merchant, the wallet and the label, so
 * a link whose wallet was swapped keeps no verified label. Format (docs/api.md, "On-ramp links"):
 *
 *   signature = hex(HMAC-SHA256(key, "chargeport-onramp-link.v1\n" + merchant + "\n" + wallet + "\n" + wallet_label))
 *
 * with `wallet` lower-cased for EVM addresses (checksum case is not part of the identity) and
 * `wallet_label` exactly as in the link (trimmed).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

const VERSION = 'chargeport-onramp-link.v1';

export interface SignedLinkFields {
  merchantId: string;
  wallet: string;
  walletLabel: string;
}

function canonicalWallet(wallet: string): string {
  const trimmed = wallet.trim();
  return /^0x[0-9a-fA-F]{40}$/.test(trimmed) ? trimmed.toLowerCase() : trimmed;
}

export function signOnrampLink(key: Buffer, fields: SignedLinkFields): string {
  const message = [VERSION, fields.merchantId, canonicalWallet(fields.wallet), fields.walletLabel.trim()].join('\n');
  return createHmac('sha256', key).update(message, 'utf8').digest('hex');
}

export function isOnrampLinkSignatureValid(key: Buffer, fields: SignedLinkFields, signature: string): boolean {
  if (!/^[0-9a-f]{64}$/i.test(signature)) return false;
  return timingSafeEqual(Buffer.from(signOnrampLink(key, fields), 'hex'), Buffer.from(signature.toLowerCase(), 'hex'));
}
