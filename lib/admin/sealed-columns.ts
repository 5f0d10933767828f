/**
 * The keyring's registry: every column that holds a value sealed under the master key
 * (lib/keyring/master-keys.ts), and how each row is re-sealed. Master-key rotation (./rotate-master-key.ts)
 * walks this list and nothing else; sealed-columns.test.ts fails when the schema holds a sealed value in a
 * column missing here. A new sealed column needs its line here.
 *
 * A row names the key that opens a value in one of two ways: the value starts with "<masterKeyId>:"
 * (`keyId: 'prefix'`), or a column beside it holds the id. Every owner binds its ciphertext to the row
 * (AAD: the wallet's id, family and address; the endpoint, account, app, merchant or kid; a constant for
 * the Transak token), so `reseal` always goes through the owner's own open and seal.
 */
import 'server-only';
import { getTableColumns, getTableName, sql, type SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import { resealTotpSecret } from '@/lib/accounts/two-factor/totp';
import { merchants, oauthClients, oidcSigningKeys, onrampAccessTokens, users, wallets, webhookEndpoints } from '@/lib/db/schema';
import { resealOnrampLinkKey } from '@/lib/onramp/onramp-link-key';
import { openClientSecret, sealClientSecret } from '@/lib/oauth/client-secret';
import { resealSigningKey } from '@/lib/oauth/signing-keys';
import { resealProviderToken } from '@/lib/onramp/providers/transak-adapter-from-env';
import { resealDataKey } from '@/lib/keyring/envelope';
import { openWebhookSecret, sealWebhookSecret } from '@/lib/webhooks/secrets';

type Row = Record<string, unknown>;

export interface SealedColumn {
  /** "table.column", for reports. */
  name: string;
  value: PgColumn;
  /** Where the id of the master key that opens the value is kept. */
  keyId: 'prefix' | PgColumn;
  /** The row's value (and key id column) sealed under the current key; throws WalletKeyError when it does not open. */
  reseal(row: Row): Row;
}

export interface SealedTable {
  /** What the rows hold, for reports: "wallet key". */
  kind: string;
  /** The associated data its owner binds each value to (a value opens only with it): for the reader. */
  binding: string;
  table: PgTable;
  /** Its text primary key: rotation walks the table in this order. */
  id: PgColumn;
  columns: SealedColumn[];
  /** Columns sealed under a key that one of `columns` holds, not under the master key: rotation never touches them. */
  inner: PgColumn[];
}

interface ColumnSpec<T extends PgTable> {
  value: PgColumn;
  keyId: 'prefix' | PgColumn;
  reseal(row: T['$inferSelect']): Partial<T['$inferInsert']>;
}

function sealedTable<T extends PgTable>(spec: {
  kind: string;
  binding: string;
  table: T;
  id: PgColumn;
  columns: ColumnSpec<T>[];
  inner?: PgColumn[];
}): SealedTable {
  const tableName = getTableName(spec.table);
  return {
    kind: spec.kind,
    binding: spec.binding,
    table: spec.table,
    id: spec.id,
    inner: spec.inner ?? [],
    columns: spec.columns.map((column) => ({
      name: `${tableName}.${column.value.name}`,
      value: column.value,
      keyId: column.keyId,
      // The row comes from `select().from(spec.table)`: its shape is T's.
      reseal: (row: Row) => column.reseal(row as T['$inferSelect']) as Row,
    })),
  };
}

/** "<masterKeyId>:<sealed>" values: the id is what precedes the first colon. */
const prefixed = (value: PgColumn) => ({ value, keyId: 'prefix' as const });

export const SEALED_TABLES: readonly SealedTable[] = [
  sealedTable({
    kind: 'wallet key',
    binding: 'JSON ["chargeport.wallet.v1", "data-key", id, family, address] (lib/keyring/envelope.ts)',
    table: wallets,
    id: wallets.id,
    // Only the data key is under the master key; the private key is sealed with the data key and never changes.
    columns: [{ value: wallets.sealedDataKey, keyId: wallets.masterKeyId, reseal: (row) => resealDataKey(row) }],
    inner: [wallets.sealedPrivateKey],
  }),
  sealedTable({
    kind: 'webhook signing secret',
    binding: 'JSON ["chargeport.webhook-secret.v1", endpoint id] (lib/webhooks/secrets.ts)',
    table: webhookEndpoints,
    id: webhookEndpoints.id,
    columns: [
      {
        ...prefixed(webhookEndpoints.signingSecret),
        reseal: (row) => ({ signingSecret: sealWebhookSecret(row.id, openWebhookSecret(row.id, row.signingSecret)) }),
      },
      {
        ...prefixed(webhookEndpoints.previousSigningSecret),
        reseal: (row) => ({ previousSigningSecret: sealWebhookSecret(row.id, openWebhookSecret(row.id, row.previousSigningSecret!)) }),
      },
    ],
  }),
  sealedTable({
    kind: 'on-ramp provider token',
    binding: 'the constant "onramp-access-token:transak" (lib/onramp/providers/transak-adapter-from-env.ts)',
    table: onrampAccessTokens,
    id: onrampAccessTokens.providerId,
    columns: [
      {
        value: onrampAccessTokens.sealedToken,
        keyId: onrampAccessTokens.masterKeyId,
        reseal: (row) => {
          const token = resealProviderToken(row.sealedToken, row.masterKeyId);
          return { sealedToken: token.sealed, masterKeyId: token.masterKeyId };
        },
      },
      {
        value: onrampAccessTokens.previousSealedToken,
        keyId: onrampAccessTokens.previousMasterKeyId,
        reseal: (row) => {
          const token = resealProviderToken(row.previousSealedToken!, row.previousMasterKeyId!);
          return { previousSealedToken: token.sealed, previousMasterKeyId: token.masterKeyId };
        },
      },
    ],
  }),
  sealedTable({
    kind: 'OpenID signing key',
    binding: 'JSON ["chargeport.oidc-signing-key.v1", kid] (lib/oauth/signing-keys.ts)',
    table: oidcSigningKeys,
    id: oidcSigningKeys.id,
    columns: [
      {
        ...prefixed(oidcSigningKeys.sealedPrivateJwk),
        reseal: (row) => ({ sealedPrivateJwk: resealSigningKey(row.id, row.sealedPrivateJwk) }),
      },
    ],
  }),
  sealedTable({
    kind: 'authenticator (TOTP) secret',
    binding: 'JSON ["chargeport.totp-secret.v1", user id] (lib/accounts/two-factor/totp.ts)',
    table: users,
    id: users.id,
    columns: [{ ...prefixed(users.totpSecret), reseal: (row) => ({ totpSecret: resealTotpSecret(row.id, row.totpSecret!) }) }],
  }),
  sealedTable({
    kind: 'OAuth client secret',
    binding: 'JSON ["chargeport.oauth-client-secret.v1", client id] (lib/oauth/client-secret.ts)',
    table: oauthClients,
    id: oauthClients.id,
    columns: [
      {
        ...prefixed(oauthClients.sealedSecret),
        reseal: (row) => ({ sealedSecret: sealClientSecret(row.id, openClientSecret(row.id, row.sealedSecret!)) }),
      },
    ],
  }),
  sealedTable({
    kind: 'on-ramp link key',
    binding: 'JSON ["chargeport.onramp-link-key.v1", merchant id] (lib/onramp/onramp-link-key.ts)',
    table: merchants,
    id: merchants.id,
    columns: [
      { ...prefixed(merchants.onrampLinkKey), reseal: (row) => ({ onrampLinkKey: resealOnrampLinkKey(row.id, row.onrampLinkKey!) }) },
    ],
  }),
];

/** The SQL for the id of the master key that opens the column's value. */
export function keyIdOf(column: SealedColumn): SQL {
  return column.keyId === 'prefix' ? sql`split_part(${column.value}, ':', 1)` : sql`${column.keyId}`;
}

/** True where the row holds a value of this column that names a key other than `current`. */
export function onOtherKey(column: SealedColumn, current: string): SQL {
  return sql`(${column.value} is not null and ${keyIdOf(column)} is distinct from ${current})`;
}

/** The row property that holds the column (drizzle rows are keyed by property, not SQL name). */
export function propertyOf(table: PgTable, column: PgColumn): string {
  const entry = Object.entries(getTableColumns(table)).find(([, candidate]) => candidate === column);
  if (!entry) throw new Error(`${column.name} is not a column of ${getTableName(table)}`);
  return entry[0];
}
