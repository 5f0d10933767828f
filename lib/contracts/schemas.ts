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

export const createRuleInputSchema = z.object({
  contractId: z.string().min(1).max(64),
  /** A signature from the contract's functions, e.g. mint(address,uint256,uint256), or one typed by the merchant. */
  function: z.string().trim().min(1, 'Choose the function to call.').max(500),
  bindings: z.array(argumentBindingSchema).max(16),
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
