'use server';

import { revalidatePath } from 'next/cache';
import { stepUpFromForm } from '@/lib/accounts/step-up-form';
import { formError, type FormState } from '@/lib/auth/form-state';
import { createFulfilmentRule } from '@/lib/contracts/create-rule';
import { setRuleEnabled } from '@/lib/contracts/list-contracts';
import { registerContract } from '@/lib/contracts/register-contract';
import { AppError } from '@/lib/errors';
import { dashboardMode } from '@/lib/merchants/dashboard-mode';
import { currentMemberActor } from '@/lib/merchants/member-actor';

const PAGE = '/dashboard/settings/contracts';

export async function registerContractAction(_state: FormState, form: FormData): Promise<FormState> {
  const values = {
    chain: String(form.get('chain') ?? ''),
    address: String(form.get('address') ?? ''),
    label: String(form.get('label') ?? ''),
    abi: String(form.get('abi') ?? ''),
  };
  try {
    const contract = await registerContract({
      ...(await currentMemberActor()),
      mode: await dashboardMode(),
      stepUp: stepUpFromForm(form),
      values,
    });
    revalidatePath(PAGE);
    const what = contract.kind === 'other' ? 'a contract (from its ABI)' : `an ${contract.kind.toUpperCase().replace('ERC', 'ERC-')}`;
    return { notice: `Registered ${contract.name ?? contract.address}: ${what} with ${contract.functions.length} callable function(s).` };
  } catch (error) {
    return formError(error, values);
  }
}

export async function createRuleAction(_state: FormState, form: FormData): Promise<FormState> {
  const values = { contractId: String(form.get('contractId') ?? ''), function: String(form.get('function') ?? '') };
  try {
    let bindings: unknown;
    let priceList: unknown;
    try {
      bindings = JSON.parse(String(form.get('bindings') ?? '[]'));
      const priceListText = String(form.get('priceList') ?? '').trim();
      priceList = priceListText ? JSON.parse(priceListText) : undefined;
    } catch {
      throw new AppError('invalid_request', 'The arguments could not be read; reload the page.', { param: 'bindings' });
    }
    const rule = await createFulfilmentRule({
      ...(await currentMemberActor()),
      mode: await dashboardMode(),
      stepUp: stepUpFromForm(form),
      values: { ...values, bindings, ...(priceList ? { priceList } : {}) },
    });
    revalidatePath(PAGE);
    return { notice: `Rule added: ${rule.functionSignature} on every succeeded charge from now on.` };
  } catch (error) {
    return formError(error, values);
  }
}

export async function setRuleEnabledAction(_state: FormState, form: FormData): Promise<FormState> {
  try {
    await setRuleEnabled({
      ...(await currentMemberActor()),
      mode: await dashboardMode(),
      stepUp: stepUpFromForm(form),
      ruleId: String(form.get('ruleId') ?? ''),
      enabled: form.get('enabled') === 'true',
    });
    revalidatePath(PAGE);
    return {};
  } catch (error) {
    return formError(error);
  }
}
