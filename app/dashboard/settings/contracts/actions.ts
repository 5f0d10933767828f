'use server';

import { revalidatePath } from 'next/cache';
import { formField, formJson, memberAction } from '@/lib/api/server-actions';
import { createFulfilmentRule } from '@/lib/contracts/create-rule';
import { setRuleEnabled } from '@/lib/contracts/list-contracts';
import { registerContract } from '@/lib/contracts/register-contract';
import { AppError } from '@/lib/errors';

const PAGE = '/dashboard/settings/contracts';

export const registerContractAction = memberAction(
  {
    values: (form) => ({
      chain: formField(form, 'chain'),
      address: formField(form, 'address'),
      label: formField(form, 'label'),
      abi: formField(form, 'abi'),
    }),
  },
  async ({ actor, mode, stepUp }, { values }) => {
    const contract = await registerContract({ ...actor, mode, stepUp, values });
    revalidatePath(PAGE);
    const what = contract.kind === 'other' ? 'a contract (from its ABI)' : `an ${contract.kind.toUpperCase().replace('ERC', 'ERC-')}`;
    return { notice: `Registered ${contract.name ?? contract.address}: ${what} with ${contract.functions.length} callable function(s).` };
  },
);

/** The rule's argument bindings and price list, JSON the page's form builds. */
function ruleJson(form: FormData): { bindings: unknown; priceList: unknown } {
  const unreadable = () => new AppError('invalid_request', 'The arguments could not be read; reload the page.', { param: 'bindings' });
  const bindings = formJson(String(form.get('bindings') ?? '[]'), unreadable);
  const priceListText = formField(form, 'priceList').trim();
  return { bindings, priceList: priceListText ? formJson(priceListText, unreadable) : undefined };
}

export const createRuleAction = memberAction(
  { values: (form) => ({ contractId: formField(form, 'contractId'), function: formField(form, 'function') }) },
  async ({ actor, mode, stepUp }, { form, values }) => {
    const { bindings, priceList } = ruleJson(form);
    const rule = await createFulfilmentRule({
      ...actor,
      mode,
      stepUp,
      values: { ...values, bindings, ...(priceList ? { priceList } : {}) },
    });
    revalidatePath(PAGE);
    return { notice: `Rule added: ${rule.functionSignature} on every succeeded charge from now on.` };
  },
);

export const setRuleEnabledAction = memberAction({}, async ({ actor, mode, stepUp }, { form }) => {
  await setRuleEnabled({ ...actor, mode, stepUp, ruleId: formField(form, 'ruleId'), enabled: form.get('enabled') === 'true' });
  revalidatePath(PAGE);
  return {};
});
