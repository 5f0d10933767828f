import { sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, pgEnum, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import type { AbiFunction } from 'viem';
import { FULFILMENT_STATUSES } from '@/lib/contracts/state';
import { apiKeyMode } from './api-keys';
import { charges } from './charges';
import { timestamps } from './columns';
import { merchants } from './merchants';
import { outboundTransfers } from './payments';

/** What Chargeport recognised on chain (ERC-165 interfaces, ERC-20 views), or `other` (an uploaded ABI says what it has). */
export const CONTRACT_KINDS = ['erc1155', 'erc721', 'erc20', 'other'] as const;
export type ContractKind = (typeof CONTRACT_KINDS)[number];
export const contractKind = pgEnum('contract_kind', CONTRACT_KINDS);

/**
 * A contract of a merchant's game, registered on the dashboard's Contracts tab (lib/contracts/). What was
 * read on chain when it was registered is kept (kind, name, symbol, interfaces, the functions found), so
 * the tab and the rule form need no RPC call to show it. One registration per (merchant, mode, chain, address).
 */
export const merchantContracts = pgTable(
  'merchant_contracts',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id')
      .notNull()
      .references(() => merchants.id),
    /** test contracts live on test networks, live ones on main networks (the chain decides; kept for scoping). */
    mode: apiKeyMode('mode').notNull(),
    chain: text('chain').notNull(),
    /** EIP-55. */
    address: text('address').notNull(),
    label: text('label'),
    kind: contractKind('kind').notNull(),
    name: text('name'),
    symbol: text('symbol'),
    decimals: integer('decimals'),
    /** Detected interfaces: erc165, erc721, erc1155, erc1155_metadata, erc721_metadata, access_control, erc20. */
    interfaces: text('interfaces')
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    /** State-changing functions a rule may call: from the uploaded ABI, or the known ones found in the bytecode. */
    functions: jsonb('functions').$type<AbiFunction[]>().notNull(),
    /** The ABI the merchant uploaded, when they did. */
    hasUploadedAbi: boolean('has_uploaded_abi').notNull().default(false),
    /** EIP-1967 proxies: the implementation whose code was read. */
    implementationAddress: text('implementation_address'),
    createdBy: text('created_by').notNull(),
    ...timestamps,
  },
  (table) => [uniqueIndex('merchant_contracts_address_idx').on(table.merchantId, table.mode, table.chain, table.address)],
);

export type MerchantContractRow = typeof merchantContracts.$inferSelect;

/** How one argument of a rule's function gets its value from a succeeded charge (lib/contracts/bind-arguments.ts). */
export type ArgumentBinding =
  | { source: 'recipient' }
  | { source: 'quantity' }
  | { source: 'item'; field: 'name' | 'quantity' | 'amount' }
  | { source: 'metadata'; key: string }
  | { source: 'value'; value: string };

/**
 * A rule's price list as stored (lib/contracts/schemas.ts priceListInputSchema, price-list-refusal.ts):
 * the token (on the rule's contract's network) and, per item id, the minimum price of one unit in its
 * base units (decimal text of a bigint).
 */
export interface StoredPriceList {
  tokenAddress: string;
  tokenSymbol: string;
  tokenDecimals: number;
  itemId: { source: 'metadata'; key: string } | { source: 'item_name' };
  minUnitBaseUnits: Record<string, string>;
}

/**
 * "When a charge succeeds, call `function` on the contract with these arguments." Applies to the
 * merchant's succeeded charges of its mode on the contract's chain that carry every metadata key the
 * bindings read (`requiredMetadataKeys`), from the moment the rule exists. A charge created with a
 * publishable key (the payer chose its price) is fulfilled only when the rule has a price list it meets.
 */
export const fulfilmentRules = pgTable(
  'fulfilment_rules',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id')
      .notNull()
      .references(() => merchants.id),
    mode: apiKeyMode('mode').notNull(),
    contractId: text('contract_id')
      .notNull()
      .references(() => merchantContracts.id),
    /** e.g. mint(address,uint256,uint256) */
    functionSignature: text('function_signature').notNull(),
    functionAbi: jsonb('function_abi').$type<AbiFunction>().notNull(),
    bindings: jsonb('bindings').$type<ArgumentBinding[]>().notNull(),
    requiredMetadataKeys: text('required_metadata_keys')
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    enabled: boolean('enabled').notNull().default(true),
    /** Null: the rule never fires on charges of publishable keys. */
    priceList: jsonb('price_list').$type<StoredPriceList>(),
    createdBy: text('created_by').notNull(),
    ...timestamps,
  },
  (table) => [index('fulfilment_rules_merchant_idx').on(table.merchantId, table.mode)],
);

export type FulfilmentRuleRow = typeof fulfilmentRules.$inferSelect;

export const fulfilmentStatus = pgEnum('fulfilment_status', FULFILMENT_STATUSES);

/**
 * One rule carried out for one succeeded charge. The row is written by the database in the transaction
 * that makes the charge succeed (trigger `charges_arm_fulfilments`, migration's custom SQL), so a crash
 * after the payment can never lose it; (charge, rule) is unique, so it can never exist twice. The job
 * (start-fulfilments.ts) records its contract call as an outbound transfer of the engine, once, under the
 * row's lock; a retry after a failure records a new one only because the previous one moved nothing.
 */
export const fulfilments = pgTable(
  'fulfilments',
  {
    id: text('id').primaryKey(),
    chargeId: text('charge_id')
      .notNull()
      .references(() => charges.id),
    ruleId: text('rule_id')
      .notNull()
      .references(() => fulfilmentRules.id),
    merchantId: text('merchant_id')
      .notNull()
      .references(() => merchants.id),
    mode: apiKeyMode('mode').notNull(),
    status: fulfilmentStatus('status').notNull().default('pending'),
    /** The current attempt's contract call (an outbound transfer of purpose `fulfilment`). */
    transferId: text('transfer_id').references(() => outboundTransfers.id),
    /** What the arguments were bound to (decimal / hex text), once bound. */
    recipient: text('recipient'),
    args: jsonb('args').$type<string[]>(),
    attempts: integer('attempts').notNull().default(0),
    failureReason: text('failure_reason'),
    /** A pending row is started at or after this time (a chain that was unreachable is tried again later). */
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    ...timestamps,
  },
  (table) => [
    // Exactly once per charge and rule, whoever inserts (the trigger, a manual fulfil).
    uniqueIndex('fulfilments_charge_rule_idx').on(table.chargeId, table.ruleId),
    // The job's work list: pending rows due now.
    index('fulfilments_due_idx')
      .on(table.nextAttemptAt)
      .where(sql`${table.status} = 'pending'`),
    uniqueIndex('fulfilments_transfer_idx').on(table.transferId),
  ],
);

export type FulfilmentRow = typeof fulfilments.$inferSelect;
