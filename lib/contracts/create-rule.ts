/**
 * "When a charge succeeds, call F with arguments bound from the charge" (the Contracts tab). The function
 * must be one the contract has: in its uploaded ABI, or found in its bytecode (a signature the merchant
 * typed is checked against the code). Each argument needs a source that can produce its type
 * (bind-arguments.ts). The rule applies to charges that succeed from now on.
 *
 * Never a token-moving function (approve, transfer, permit, setApprovalForAll, …), compared by selector
 * whatever the uploaded ABI names it (token-moving-selectors.ts, `function_moves_tokens`). An owner's
 * act, confirmed with their PIN or a passkey; every owner is e-mailed. An optional price list lets the
 * rule fire on charges of publishable keys (price-list-refusal.ts).
 */
import { and, eq, sql } from 'drizzle-orm';
import type { AbiFunction } from 'viem';
import { verifyStepUp, type StepUpProof } from '@/lib/accounts/step-up';
import { recordAudit } from '@/lib/audit/record-audit';
import { CHAINS, findToken, tokenHasSymbol, type ChainName } from '@/lib/chains/registry';
import { getDb, type DbOrTx } from '@/lib/db/client';
import {
  fulfilmentRules,
  merchantContracts,
  merchantTokens,
  type ApiKeyMode,
  type ArgumentBinding,
  type FulfilmentRuleRow,
  type StoredPriceList,
} from '@/lib/db/schema';
import { AppError } from '@/lib/errors';
import { newId } from '@/lib/ids';
import { notifyOwners } from '@/lib/merchants/notify-owners';
import { authorizeMember } from '@/lib/merchants/permissions';
import { parseAmount } from '@/lib/money';
import { codeHasFunction, isStateChanging, parseFunctionSignature, signatureOf } from './abi';
import { checkBindings } from './bind-arguments';
import { chainClient } from './inspect-contract';
import { createRuleInputSchema, type PriceListInput } from './schemas';
import { tokenMovingFunction } from '@/lib/transactions/token-moving-selectors';

export async function createFulfilmentRule(input: {
  userId: string;
  merchantId: string;
  mode: ApiKeyMode;
  ip?: string | null;
  /** The owner's PIN or passkey assertion (components/account/step-up-fields.tsx). */
  stepUp?: StepUpProof;
  values: unknown;
}): Promise<FulfilmentRuleRow> {
  await authorizeMember(getDb(), { ...input, permission: 'contracts.manage' });
  const parsed = createRuleInputSchema.safeParse(input.values);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new AppError('invalid_request', issue.message, { param: issue.path.join('.') });
  }
  const [contract] = await getDb()
    .select()
    .from(merchantContracts)
    .where(
      and(
        eq(merchantContracts.id, parsed.data.contractId),
        eq(merchantContracts.merchantId, input.merchantId),
        eq(merchantContracts.mode, input.mode),
      ),
    );
  if (!contract) throw new AppError('not_found', 'No such contract in this mode. Register it first.', { param: 'contractId' });
  // By selector, before anything else: an uploaded ABI may give approve's selector any name.
  refuseTokenMovingFunction(parseFunctionSignature(parsed.data.function));
  const fn = await resolveFunction(contract, parsed.data.function);
  const bindings = parsed.data.bindings;
  checkBindings(fn, bindings);
  const requiredMetadataKeys = [...new Set(bindings.flatMap((b) => (b.source === 'metadata' ? [b.key] : [])))];
  const priceList = parsed.data.priceList
    ? await storedPriceList(getDb(), {
        merchantId: input.merchantId,
        chain: contract.chain as ChainName,
        fn,
        bindings,
        input: parsed.data.priceList,
      })
    : null;

  const created = await getDb().transaction(async (tx) => {
    const actor = await authorizeMember(tx, { ...input, permission: 'contracts.manage' });
    await verifyStepUp({
      userId: input.userId,
      proof: input.stepUp ?? {},
      mode: input.mode,
      tx,
      attempt: { action: 'fulfilment_rule_create', merchantId: input.merchantId, mode: input.mode, ip: input.ip },
    });
    const [rule] = await tx
      .insert(fulfilmentRules)
      .values({
        id: newId('fulfilmentRule'),
        merchantId: input.merchantId,
        mode: input.mode,
        contractId: contract.id,
        functionSignature: signatureOf(fn),
        functionAbi: fn,
        bindings,
        requiredMetadataKeys,
        priceList,
        createdBy: `member:${input.userId}`,
      })
      .returning();
    await recordAudit(tx, {
      actor,
      action: 'fulfilment_rule.create',
      targetId: rule!.id,
      mode: input.mode,
      data: { contractId: contract.id, function: rule!.functionSignature, bindings, priceList },
      ip: input.ip,
    });
    return rule!;
  });
  await notifyOwners({
    merchantId: input.merchantId,
    actorUserId: input.userId,
    ip: input.ip,
    subject: `fulfilment rule added: ${created.functionSignature} (${input.mode} mode)`,
    text: `A fulfilment rule was added on the Contracts tab (${input.mode} mode): when a charge succeeds, your service wallet calls ${created.functionSignature} on ${contract.address} (${CHAINS[contract.chain as ChainName].displayName}).${priceList ? ` It fires on charges of publishable keys that meet its price list (${Object.keys(priceList.minUnitBaseUnits).length} items, in ${priceList.tokenSymbol}).` : ' It does not fire on charges of publishable keys (no price list).'}`,
  });
  return created;
}

/** `function_moves_tokens` for any function whose selector is a standard token-moving one, whatever its name. */
export function refuseTokenMovingFunction(fn: AbiFunction): void {
  const standard = tokenMovingFunction(fn);
  if (!standard) return;
  throw new AppError(
    'function_moves_tokens',
    `${signatureOf(fn)} has the selector of ${standard}, a function that moves or approves tokens: fulfilment rules never call one (your service wallet holds your funds). Choose a mint function.`,
    { param: 'function' },
  );
}

/**
 * The price list as stored: its token resolved on the contract's network (a network token or one of the
 * merchant's custom tokens), prices in base units. The item id must be what the rule's item argument
 * reads, and no other number may come from metadata the payer sets (it could be a quantity).
 */
async function storedPriceList(
  db: DbOrTx,
  input: { merchantId: string; chain: ChainName; fn: AbiFunction; bindings: ArgumentBinding[]; input: PriceListInput },
): Promise<StoredPriceList> {
  const invalid = (message: string, param: string) => new AppError('invalid_price_list', message, { param: `priceList.${param}` });
  const text = input.input.token;
  const registry = CHAINS[input.chain].tokens.find((t) => tokenHasSymbol(t, text)) ?? findToken(CHAINS[input.chain], text);
  const [custom] = registry
    ? []
    : await db
        .select()
        .from(merchantTokens)
        .where(
          and(
            eq(merchantTokens.merchantId, input.merchantId),
            eq(merchantTokens.chain, input.chain),
            eq(merchantTokens.isCustom, true),
            sql`(lower(${merchantTokens.address}) = ${text.toLowerCase()} or upper(${merchantTokens.symbol}) = ${text.toUpperCase()})`,
          ),
        )
        .limit(1);
  const token = registry ?? custom;
  if (!token) {
    throw invalid(`${CHAINS[input.chain].displayName} has no token “${text}” (a network token or one of your custom tokens).`, 'token');
  }
  const itemId: StoredPriceList['itemId'] = input.input.itemId.startsWith('metadata.')
    ? { source: 'metadata', key: input.input.itemId.slice('metadata.'.length) }
    : { source: 'item_name' };
  const readsItemId = input.bindings.some((b) =>
    itemId.source === 'metadata' ? b.source === 'metadata' && b.key === itemId.key : b.source === 'item' && b.field === 'name',
  );
  if (!readsItemId) {
    throw invalid(
      `The rule’s arguments do not read ${input.input.itemId}: the price list must price the item the rule delivers.`,
      'itemId',
    );
  }
  input.fn.inputs.forEach((param, index) => {
    const binding = input.bindings[index];
    if (binding?.source === 'metadata' && /int/.test(param.type) && !(itemId.source === 'metadata' && binding.key === itemId.key)) {
      throw new AppError(
        'invalid_price_list',
        `${param.name || `Argument ${index + 1}`} (${param.type}) reads metadata.${binding.key}, which the payer sets on charges of publishable keys: with a price list, take quantities from the charge's quantity or a fixed value.`,
        { param: `bindings.${index}` },
      );
    }
  });
  const minUnitBaseUnits: Record<string, string> = {};
  input.input.prices.forEach((price, index) => {
    const amount = parseAmount(price.minUnitPrice, token.decimals);
    if (!amount.ok) {
      throw invalid(
        `The minimum price of “${price.item}” is not a positive amount of ${token.symbol} with at most ${token.decimals} decimals.`,
        `prices.${index}.minUnitPrice`,
      );
    }
    if (Object.hasOwn(minUnitBaseUnits, price.item)) throw invalid(`“${price.item}” is listed twice.`, `prices.${index}.item`);
    minUnitBaseUnits[price.item] = amount.baseUnits.toString();
  });
  return { tokenAddress: token.address, tokenSymbol: token.symbol, tokenDecimals: token.decimals, itemId, minUnitBaseUnits };
}

/** The contract's function named by `text` (a listed signature, or one typed and found in the bytecode). */
async function resolveFunction(
  contract: { chain: string; address: string; functions: AbiFunction[]; hasUploadedAbi: boolean; implementationAddress: string | null },
  text: string,
): Promise<AbiFunction> {
  const wanted = parseFunctionSignature(text);
  const signature = signatureOf(wanted);
  const listed = contract.functions.find((fn) => signatureOf(fn) === signature);
  if (listed) return listed;
  const sameName = contract.functions.filter((fn) => fn.name === wanted.name).map(signatureOf);
  if (contract.hasUploadedAbi) {
    throw new AppError(
      'function_not_found',
      `The contract’s ABI has no state-changing function ${signature}.${sameName.length ? ` It has ${sameName.join(', ')}.` : ''}`,
      { param: 'function' },
    );
  }
  const client = chainClient(contract.chain as ChainName);
  const code = await client.getCode({ address: (contract.implementationAddress ?? contract.address) as `0x${string}` }).catch(() => {
    throw new AppError('chain_unavailable', 'The network is not reachable right now. Try again shortly.');
  });
  const fn = { ...wanted, stateMutability: 'nonpayable' as const };
  if (!code || !codeHasFunction(code, fn) || !isStateChanging(fn)) {
    throw new AppError(
      'function_not_found',
      `The contract has no function ${signature} (its selector is not in the contract’s code).${sameName.length ? ` It has ${sameName.join(', ')}.` : ''} Check the argument types, or upload the ABI.`,
      { param: 'function' },
    );
  }
  return fn;
}
