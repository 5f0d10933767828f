/** The Contracts tab's inputs and the fulfilment object of `fulfilment.*` webhooks. */
import { z } from 'zod';
import { CHAIN_NAMES } from '@/lib/chains/registry';
import { API_KEY_MODES } from '@/lib/db/schema/api-keys';
import { FULFILMENT_STATUSES } from './state';

export const registerContractInputSchema = z.object({
  chain: z.enum(CHAIN_NAMES, { error: 'Choose a network.' }),
  address: z.string().trim().min(1, 'Enter the contract address.').max(100),
  label: z.string().trim().max(80).optional(),
  /** The ABI JSON, for contracts Chargeport does not recognise (or to offer all of their functions). */
  abi: z.string().max(600_000).optional(),
});

const argumentBindingSchema = z.discriminatedUnion('source', [
  z.object({ source: z.literal('recipient') }),
  z.object({ source: z.literal('quantity') }),
  z.object({ source: z.literal('item'), field: z.enum(['name', 'quantity', 'amount']) }),
  z.object({
    source: z.literal('metadata'),
    key: z.string().trim().min(1, 'name the metadata key').max(40, 'metadata keys are at most 40 characters'),
  }),
  z.object({ source: z.literal('value'), value: z.string().max(500) }),
]);

/**
 * A rule's price list: what a charge created with a publishable key (whose amount, items and metadata the
 * payer chose) must pay for the rule to fire. Without one, such charges never fire the rule.
 *
 *   token   the token prices are in: its symbol or address on the contract's network (a network token, or
 *           one of the merchant's custom tokens); a charge paid in another token does not meet the list
 *   itemId  where the charge's item id is read: `metadata.<key>` (one item id for the whole charge) or
 *           `item.name` (each line of `items` is an item id)
 *   prices  item id → minimum price of one unit, as a decimal of the token ("2.5")
 *
 * The charge meets it when every item id it names is listed and its total is at least the sum of
 * minimum × quantity (`metadata.<key>`: × the items' total quantity, 1 without items; `item.name`: each
 * line's quantity). See price-list-refusal.ts.
 */
const priceListInputSchema = z.object({
  token: z.string().trim().min(1, 'Name the token the prices are in (its symbol or address).').max(100),
  itemId: z
    .string()
    .trim()
    .regex(/^(metadata\.[^\s]{1,40}|item\.name)$/, 'Read the item id from metadata.<key> (e.g. metadata.itemId) or item.name.'),
  prices: z
    .array(
      z.object({
        item: z.string().trim().min(1, 'Each price needs its item id.').max(200),
        minUnitPrice: z
          .string()
          .trim()
          .regex(/^\d+(\.\d+)?$/, 'Each minimum price is a decimal such as 2.5.'),
      }),
    )
    .min(1, 'List at least one item and its minimum price.')
    .max(500, 'At most 500 items in one price list.'),
});
export type PriceListInput = z.infer<typeof priceListInputSchema>;

export const createRuleInputSchema = z.object({
  contractId: z.string().min(1).max(64),
  /** A signature from the contract's functions, e.g. mint(address,uint256,uint256), or one typed by the merchant. */
  function: z.string().trim().min(1, 'Choose the function to call.').max(500),
  bindings: z.array(argumentBindingSchema).max(16),
  /** Needed for the rule to fire on charges of publishable keys (see priceListInputSchema). */
  priceList: priceListInputSchema.optional(),
});

export const fulfilmentSchema = z
  .object({
    id: z.string().meta({ example: 'ful_4Vd9TQ1aQm2xA7bC3dE5fG' }),
    object: z.literal('fulfilment'),
    chargeId: z.string(),
    ruleId: z.string(),
    mode: z.enum(API_KEY_MODES),
    status: z.enum(FULFILMENT_STATUSES).meta({
      description:
        'pending: about to be sent; submitted: the contract call is on its way; succeeded: it is confirmed on chain; failed: it reverted or could not be made (nothing was minted; the dashboard can retry).',
    }),
    chain: z.string(),
    contractAddress: z.string(),
    function: z.string().meta({ example: 'mint(address,uint256,uint256)' }),
    recipient: z.string().nullable().meta({ description: 'Who the call delivers to: the charge’s toAddress, else the payer.' }),
    args: z.array(z.string()).nullable().meta({ description: 'The arguments the call was made with, as text.' }),
    transactionHash: z.string().nullable(),
    failureReason: z.string().nullable(),
    attempts: z.number().int(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Fulfilment', description: 'A fulfilment rule carried out for a succeeded charge (dashboard → Contracts).' });
export type FulfilmentResource = z.infer<typeof fulfilmentSchema>;
