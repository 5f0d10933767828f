import { index, integer, pgEnum, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { timestamps } from './columns';

/** How an account was first created; decides which sign-in rules apply (spec account rules 2–4). */
export const SIGN_IN_METHODS = ['email', 'google', 'apple', 'ethereum'] as const;
export type SignInMethod = (typeof SIGN_IN_METHODS)[number];
export const signInMethod = pgEnum('sign_in_method', SIGN_IN_METHODS);

/**
 * A person's account: one for the wallet website and the merchant dashboard alike.
 * Secrets are never stored in clear: the PIN as argon2id keyed with a server-side pepper.
 */
export const users = pgTable(
  'users',
  {
    id: text('id').primaryKey(),
    /** Lower-cased. Null only for a Sign-in-with-Ethereum account that has not verified an e-mail yet. */
    email: text('email'),
    emailVerifiedAt: timestamp('email_verified_at', { withTimezone: true, mode: 'date' }),
    signUpMethod: signInMethod('sign_up_method').notNull(),
    pinHash: text('pin_hash'),
    pinSetAt: timestamp('pin_set_at', { withTimezone: true, mode: 'date' }),
    /** Wrong PINs since the last right one. */
    pinFailedAttempts: integer('pin_failed_attempts').notNull().default(0),
    pinLockedUntil: timestamp('pin_locked_until', { withTimezone: true, mode: 'date' }),
    /** Set after too many wrong PINs: only a reset through the linked phone re-enables the PIN. */
    pinDisabledAt: timestamp('pin_disabled_at', { withTimezone: true, mode: 'date' }),
    phoneE164: text('phone_e164'),
    phoneVerifiedAt: timestamp('phone_verified_at', { withTimezone: true, mode: 'date' }),
    /** Bumped by "sign out everywhere": session tokens carrying an older version are refused. */
    sessionVersion: integer('session_version').notNull().default(0),
    /** Authenticator-app (TOTP) secret, sealed under the wallet master key as "<masterKeyId>:<sealed>" (lib/accounts/two-factor/totp.ts). */
    totpSecret: text('totp_secret'),
    /** Set once the first code from the app proved it is set up; null while an enrolment is pending. */
    totpEnabledAt: timestamp('totp_enabled_at', { withTimezone: true, mode: 'date' }),
    /** The time step of the last code accepted: a code is never accepted twice (replay). */
    totpLastStep: integer('totp_last_step'),
    ...timestamps,
  },
  (table) => [uniqueIndex('users_email_idx').on(table.email)],
);

export type User = typeof users.$inferSelect;

/** Ways to sign in to an account: its e-mail (code), a Google/Apple subject, an Ethereum address. */
export const authIdentities = pgTable(
  'auth_identities',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id),
    provider: signInMethod('provider').notNull(),
    /** e-mail (lower-cased), OIDC `sub`, or EIP-55 address. */
    subject: text('subject').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (table) => [
    uniqueIndex('auth_identities_provider_subject_idx').on(table.provider, table.subject),
    index('auth_identities_user_idx').on(table.userId),
  ],
);

/**
 * change_email goes to the new address, change_email_old to the current one: both are needed to change it.
 * security_change confirms a second-factor change or a first PIN for an account with no PIN and no passkey
 * (lib/accounts/two-factor/factor-change-proof.ts).
 */
export const CODE_PURPOSES = [
  'signup',
  'signin',
  'verify_email',
  'link_phone',
  'reset_pin',
  'change_email',
  'change_email_old',
  'security_change',
] as const;
export type CodePurpose = (typeof CODE_PURPOSES)[number];
export const codePurpose = pgEnum('code_purpose', CODE_PURPOSES);

/**
 * One-time 6-digit codes sent by e-mail or SMS. Stored as an HMAC keyed with a server secret, single
 * use, expiring, with a bounded number of wrong tries.
 */
export const verificationCodes = pgTable(
  'verification_codes',
  {
    id: text('id').primaryKey(),
    purpose: codePurpose('purpose').notNull(),
    /** The e-mail or E.164 phone number the code was sent to. */
    target: text('target').notNull(),
    userId: text('user_id').references(() => users.id),
    codeHash: text('code_hash').notNull(),
    attempts: integer('attempts').notNull().default(0),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    consumedAt: timestamp('consumed_at', { withTimezone: true, mode: 'date' }),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (table) => [
    // The latest code for a purpose and target is what a user enters.
    index('verification_codes_lookup_idx').on(table.purpose, table.target, table.createdAt),
    // The daily cap of wrong codes counts an address's codes of the last 24 hours, whatever their purpose.
    index('verification_codes_target_idx').on(table.target, table.createdAt),
  ],
);

/** Sign-in-with-Ethereum nonces: issued by the server, accepted once, short-lived. */
export const siweNonces = pgTable('siwe_nonces', {
  nonce: text('nonce').primaryKey(),
  expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
  usedAt: timestamp('used_at', { withTimezone: true, mode: 'date' }),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
});
