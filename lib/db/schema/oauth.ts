import { sql } from 'drizzle-orm';
import { index, jsonb, pgEnum, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { PAYMENT_REQUEST_STATUSES, type PaymentRequestStatus } from '@/lib/oauth/state';
import { timestamps } from './columns';
import { charges } from './charges';
import { merchants } from './merchants';
import { users } from './users';

/**
 * "Sign in with Chargeport" (lib/oauth/): merchants' OAuth apps, the OpenID provider's own storage,
 * its signing keys, and in-app payment requests.
 */

/** public: a browser app or a game (no secret, PKCE only). confidential: a server that keeps a secret. */
export const OAUTH_CLIENT_TYPES = ['public', 'confidential'] as const;
export type OAuthClientType = (typeof OAUTH_CLIENT_TYPES)[number];
export const oauthClientType = pgEnum('oauth_client_type', OAUTH_CLIENT_TYPES);

/** An app a merchant registered on the OAuth tab; its id is the OAuth `client_id`. */
export const oauthClients = pgTable(
  'oauth_clients',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id')
      .notNull()
      .references(() => merchants.id),
    name: text('name').notNull(),
    /** https image shown on the consent screen. */
    logoUrl: text('logo_url'),
    redirectUris: text('redirect_uris').array().notNull(),
    clientType: oauthClientType('client_type').notNull(),
    /**
     * Confidential clients only: the secret sealed under the wallet master key ("<masterKeyId>:<sealed>",
     * lib/oauth/client-secret.ts). oidc-provider compares the plaintext, so it is sealed, not hashed, like
     * webhook signing secrets. Null: no secret (public client, or revoked).
     */
    sealedSecret: text('sealed_secret'),
    secretCreatedAt: timestamp('secret_created_at', { withTimezone: true, mode: 'date' }),
    /** A revoked app is unknown to the provider: its tokens and grants are deleted with it. */
    revokedAt: timestamp('revoked_at', { withTimezone: true, mode: 'date' }),
    ...timestamps,
  },
  (table) => [index('oauth_clients_merchant_idx').on(table.merchantId)],
);

export type OAuthClient = typeof oauthClients.$inferSelect;

/**
 * oidc-provider's storage (its Adapter interface, lib/oauth/adapter.ts): one row per model instance
 * (Session, Interaction, AuthorizationCode, AccessToken, RefreshToken, DeviceCode, Grant, …).
 * `grantId`, `userCode` and `uid` are the lookups the interface asks for; `accountId` and `clientId`
 * let "Connected apps" and the OAuth tab list grants without scanning payloads.
 *
 * A bump of `users.session_version` (sign out everywhere, PIN change or reset, e-mail or phone change,
 * a new second factor, removal from a merchant) deletes every row of the account here, in the same
 * statement, by a trigger: apps lose their grants and refresh and access tokens with the sessions (N14).
 */
export const oidcPayloads = pgTable(
  'oidc_payloads',
  {
    model: text('model').notNull(),
    id: text('id').notNull(),
    payload: jsonb('payload').$type<Record<string, unknown>>().notNull(),
    grantId: text('grant_id'),
    userCode: text('user_code'),
    uid: text('uid'),
    accountId: text('account_id'),
    clientId: text('client_id'),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }),
    consumedAt: timestamp('consumed_at', { withTimezone: true, mode: 'date' }),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (table) => [
    uniqueIndex('oidc_payloads_model_id_idx').on(table.model, table.id),
    // revokeByGrantId deletes every token of a grant.
    index('oidc_payloads_grant_idx').on(table.grantId),
    index('oidc_payloads_user_code_idx').on(table.model, table.userCode),
    index('oidc_payloads_uid_idx').on(table.model, table.uid),
    // Connected apps (per account) and the OAuth tab's users (per client) read grants.
    index('oidc_payloads_grants_idx')
      .on(table.clientId, table.accountId)
      .where(sql`${table.model} = 'Grant'`),
    // The sweep deletes what expired.
    index('oidc_payloads_expires_idx').on(table.expiresAt),
    // Ending every session of an account deletes its grants, tokens and provider sessions (migration
    // migration 0042: a trigger on users.session_version) and "Revoke all" does the same.
    index('oidc_payloads_account_idx').on(table.accountId),
  ],
);

/**
 * The provider's signing keys (JWKS). The private JWK is sealed under the wallet master key; the
 * public JWK is kept in clear for the JWKS document. The newest unretired key signs; a retired key
 * stays published until `publishedUntil` (its last token has expired), then leaves the JWKS.
 */
export const oidcSigningKeys = pgTable('oidc_signing_keys', {
  /** The JWK `kid`. */
  id: text('id').primaryKey(),
  alg: text('alg').notNull(),
  sealedPrivateJwk: text('sealed_private_jwk').notNull(),
  publicJwk: jsonb('public_jwk').$type<Record<string, unknown>>().notNull(),
  retiredAt: timestamp('retired_at', { withTimezone: true, mode: 'date' }),
  publishedUntil: timestamp('published_until', { withTimezone: true, mode: 'date' }),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
});

export type { PaymentRequestStatus };
export const paymentRequestStatus = pgEnum('oauth_payment_request_status', PAYMENT_REQUEST_STATUSES);

/**
 * In-app pay (lib/oauth/payment-requests/): an app with the `payments` scope asks to pay one of its
 * merchant's charges for the signed-in user; the user confirms with the PIN on Chargeport's own page
 * (the SDK's popup, or the device-style verification page with `userCode`).
 */
export const oauthPaymentRequests = pgTable(
  'oauth_payment_requests',
  {
    id: text('id').primaryKey(),
    clientId: text('client_id')
      .notNull()
      .references(() => oauthClients.id),
    userId: text('user_id')
      .notNull()
      .references(() => users.id),
    chargeId: text('charge_id')
      .notNull()
      .references(() => charges.id),
    /** "BCDF-GHJK": typed on the verification page by a user whose game shows it. */
    userCode: text('user_code').notNull(),
    status: paymentRequestStatus('status').notNull().default('pending'),
    transferId: text('transfer_id'),
    txHash: text('tx_hash'),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    decidedAt: timestamp('decided_at', { withTimezone: true, mode: 'date' }),
    ...timestamps,
  },
  (table) => [
    // A user code names one request while it can still be confirmed.
    uniqueIndex('oauth_payment_requests_user_code_idx')
      .on(table.userCode)
      .where(sql`${table.status} = 'pending'`),
    index('oauth_payment_requests_charge_idx').on(table.chargeId),
  ],
);

export type OAuthPaymentRequest = typeof oauthPaymentRequests.$inferSelect;
