/**
 * "When a charge succeeds, call F with arguments bound from the charge" (the Contracts tab). The function
 * must be one the contract has: in its uploaded ABI, or found in its bytecode (a signature the merchant
 * typed is checked against the code). Each argument needs a source that can produce its type
 * (bind-arguments.ts). The rule applies to charges that succeed from now on.
 */
import { and, eq } from 'drizzle-orm';
import type { AbiFunction } from 'viem';
import { recordAudit } from '@/lib/audit/record-audit';
import { type ChainName } from '@/lib/chains/registry';
import { getDb } from '@/lib/db/client';
import { fulfilmentRules, merchantContracts, type ApiKeyMode, type FulfilmentRuleRow } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';
import { newId } from '@/lib/ids';
import { authorizeMember } from '@/lib/merchants/permissions';
import { codeHasFunction, isStateChanging, parseFunctionSignature, signatureOf } from './abi';
import { checkBindings } from './bind-arguments';
import { chainClient } from './inspect-contract';
import { createRuleInputSchema } from './schemas';

export async function createFulfilmentRule(input: {
  userId: string;
  merchantId: string;
  mode: ApiKeyMode;
  ip?: string | null;
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
  const fn = await resolveFunction(contract, parsed.data.function);
  const bindings = parsed.data.bindings;
  checkBindings(fn, bindings);
  const requiredMetadataKeys = [...new Set(bindings.flatMap((b) => (b.source === 'metadata' ? [b.key] : [])))];

  return getDb().transaction(async (tx) => {
    const actor = await authorizeMember(tx, { ...input, permission: 'contracts.manage' });
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
        createdBy: `member:${input.userId}`,
      })
      .returning();
    await recordAudit(tx, {
      actor,
      action: 'fulfilment_rule.create',
      targetId: rule!.id,
      mode: input.mode,
      data: { contractId: contract.id, function: rule!.functionSignature, bindings },
      ip: input.ip,
    });
    return rule!;
  });
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
