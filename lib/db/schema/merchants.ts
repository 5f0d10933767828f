import { pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { timestamps } from './columns';

/**
 * A merchant (game or app studio). `verifiedAt` is set when business verification is done; only a
 * verified merchant may hold production keys and make direct transfers. Renaming a verified merchant
 * sets `reviewRequiredAt`: verification covered the old name, so until support re-verifies, no new
 * production key and no direct transfer (lib/merchants/verification.ts); existing keys keep working.
 */
export const merchants = pgTable('merchants', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  email: text('email').notNull(),
  verifiedAt: timestamp('verified_at', { withTimezone: true, mode: 'date' }),
  /** Set when the merchant asks for business verification from the dashboard; support then verifies. */
  verificationRequestedAt: timestamp('verification_requested_at', { withTimezone: true, mode: 'date' }),
  /** Set when a verified merchant changed its name; cleared when support verifies it again. */
  reviewRequiredAt: timestamp('review_required_at', { withTimezone: true, mode: 'date' }),
  /** Shown on the hosted checkout next to the name (https image URL), set on the Profile tab. */
  logoUrl: text('logo_url'),
  /** Where consumers write about a purchase; shown on receipts and the checkout. */
  supportEmail: text('support_email'),
  /**
   * The key that signs on-ramp links (lib/onramp/link-signature.ts), sealed under the wallet master key
   * as "<masterKeyId>:<sealed>" (it must be read back to check signatures). Null: links are unsigned.
   */
  onrampLinkKey: text('onramp_link_key'),
  onrampLinkKeyCreatedAt: timestamp('onramp_link_key_created_at', { withTimezone: true, mode: 'date' }),
  ...timestamps,
});

export type Merchant = typeof merchants.$inferSelect;
