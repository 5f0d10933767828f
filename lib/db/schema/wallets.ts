import { sql } from 'drizzle-orm';
import { check, index, pgEnum, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { merchants } from './merchants';
import { users } from './users';

export const WALLET_FAMILIES = ['evm', 'solana'] as const;
export type WalletFamily = (typeof WALLET_FAMILIES)[number];
export const walletFamily = pgEnum('wallet_family', WALLET_FAMILIES);

/**
 * Service wallets generated for every account and every merchant: one EVM address (all EVM chains) and
 * one Solana address. A wallet belongs to exactly one user or one merchant (the merchant's wallet is
 * where its charges' funds are swept; it does not change hands when members come and go).
 * Envelope encryption: the private key is sealed with a per-wallet data key (AES-256-GCM), and the
 * data key is sealed with the master key named by `masterKeyId`. Rotating the master key re-seals only
 * the data keys (lib/admin/rotate-master-key.ts).
 */
export const wallets = pgTable(
  'wallets',
  {
    id: text('id').primaryKey(),
    userId: text('user_id').references(() => users.id),
    merchantId: text('merchant_id').references(() => merchants.id),
    family: walletFamily('family').notNull(),
    address: text('address').notNull(),
    /** base64(iv ‖ ciphertext ‖ tag) of the private key under the data key. */
    sealedPrivateKey: text('sealed_private_key').notNull(),
    /** base64(iv ‖ ciphertext ‖ tag) of the data key under the master key. */
    sealedDataKey: text('sealed_data_key').notNull(),
    masterKeyId: text('master_key_id').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (table) => [
    uniqueIndex('wallets_user_family_idx').on(table.userId, table.family),
    uniqueIndex('wallets_merchant_family_idx').on(table.merchantId, table.family),
    check('wallets_one_owner', sql`(${table.userId} is null) <> (${table.merchantId} is null)`),
    uniqueIndex('wallets_address_idx').on(table.address),
    index('wallets_master_key_idx').on(table.masterKeyId),
  ],
);

export type WalletRow = typeof wallets.$inferSelect;

/** Every private-key export: when and from where, shown to the account's owner. */
export const walletExports = pgTable(
  'wallet_exports',
  {
    id: text('id').primaryKey(),
    walletId: text('wallet_id')
      .notNull()
      .references(() => wallets.id),
    userId: text('user_id')
      .notNull()
      .references(() => users.id),
    ip: text('ip'),
    userAgent: text('user_agent'),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (table) => [index('wallet_exports_user_idx').on(table.userId, table.createdAt)],
);
