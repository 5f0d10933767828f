import { index, integer, pgEnum, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { users } from './users';

/**
 * A passkey (WebAuthn credential) of an account: a second factor at sign-in, and a stand-in for the
 * PIN when confirming money and ownership changes (lib/accounts/step-up.ts). Only the public key is kept.
 */
export const passkeys = pgTable(
  'passkeys',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id),
    /** The authenticator's credential id, base64url. */
    credentialId: text('credential_id').notNull(),
    /** COSE public key, base64url. */
    publicKey: text('public_key').notNull(),
    /** Signature counter: a counter that goes backwards means a cloned authenticator. */
    counter: integer('counter').notNull().default(0),
    transports: text('transports').array().notNull().default([]),
    name: text('name').notNull(),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true, mode: 'date' }),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (table) => [uniqueIndex('passkeys_credential_idx').on(table.credentialId), index('passkeys_user_idx').on(table.userId)],
);

export type Passkey = typeof passkeys.$inferSelect;

/** Recovery codes: shown once when two-factor sign-in is turned on, kept as HMACs, each usable once. */
export const recoveryCodes = pgTable(
  'recovery_codes',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id),
    codeHash: text('code_hash').notNull(),
    usedAt: timestamp('used_at', { withTimezone: true, mode: 'date' }),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (table) => [index('recovery_codes_user_idx').on(table.userId)],
);

export const WEBAUTHN_CEREMONIES = ['register', 'sign_in', 'step_up'] as const;
export type WebauthnCeremony = (typeof WEBAUTHN_CEREMONIES)[number];
export const webauthnCeremony = pgEnum('webauthn_ceremony', WEBAUTHN_CEREMONIES);

/** WebAuthn challenges issued by the server: bound to an account and a ceremony, accepted once, for 5 minutes. */
export const webauthnChallenges = pgTable('webauthn_challenges', {
  challenge: text('challenge').primaryKey(),
  userId: text('user_id')
    .notNull()
    .references(() => users.id),
  ceremony: webauthnCeremony('ceremony').notNull(),
  expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
  usedAt: timestamp('used_at', { withTimezone: true, mode: 'date' }),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
});
