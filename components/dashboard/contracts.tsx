'use client';

import { useActionState, useState } from 'react';
import { createRuleAction, registerContractAction, setRuleEnabledAction } from '@/app/dashboard/settings/contracts/actions';
import { StepUpFields } from '@/components/account/step-up-fields';
import { Button } from '@/components/ui/button';
import { Notice } from '@/components/ui/card';
import { Field } from '@/components/ui/field';
import type { FormState } from '@/lib/auth/form-state';

interface FunctionView {
  signature: string;
  inputs: { name: string; type: string }[];
}

export interface ContractView {
  id: string;
  chainName: string;
  address: string;
  label: string | null;
  kind: string;
  name: string | null;
  symbol: string | null;
  decimals: number | null;
  interfaces: string[];
  hasUploadedAbi: boolean;
  functions: FunctionView[];
  minter: { mechanism: string; held: boolean | null; howToGrant: string };
  rules: { id: string; function: string; bindings: string[]; enabled: boolean; priceList: string | null }[];
}

const fieldError = (state: FormState, param: string) => (state.error?.param === param ? state.error.message : undefined);

const KIND_LABEL: Record<string, string> = { erc1155: 'ERC-1155', erc721: 'ERC-721', erc20: 'ERC-20', other: 'Contract (from its ABI)' };
// Full width and allowed to shrink: a long option (a function signature) must not widen the page on a phone.
const selectClass = 'min-h-11 w-full min-w-0 max-w-full rounded-lg border border-slate-300 bg-white px-3 text-base';

export function RegisterContractForm({ chains }: { chains: string[] }) {
  const [state, action, pending] = useActionState<FormState, FormData>(registerContractAction, {});
  const errorFor = (param: string) => (state.error?.param === param ? state.error.message : undefined);
  const general = state.error && !['address', 'abi', 'chain', 'pin'].includes(state.error.param ?? '') ? state.error.message : undefined;
  return (
    <form
      action={action}
      className="flex min-w-0 max-w-xl flex-col gap-3 rounded-xl bg-white p-4 ring-1 ring-slate-200 sm:p-5"
      aria-labelledby="register-heading"
    >
      <h2 id="register-heading" className="font-semibold">
        Register a contract
      </h2>
      <p className="text-sm text-slate-600">
        Chargeport reads it on chain: ERC-721 and ERC-1155 by their ERC-165 interfaces. For any other contract, paste its ABI. Tokens are
        refused (network and custom tokens, ERC-20s, anything your service wallet holds): rules call item contracts only.
      </p>
      <p className="text-sm text-slate-600">You confirm with your PIN or a passkey; every owner is e-mailed.</p>
      {state.notice && <Notice tone="success">{state.notice}</Notice>}
      {general && <Notice tone="error">{general}</Notice>}
      <label className="flex flex-col gap-1.5 text-sm font-medium text-slate-800">
        Network
        <select name="chain" defaultValue={state.values?.chain ?? chains[0]} className={selectClass}>
          {chains.map((chain) => (
            <option key={chain} value={chain}>
              {chain}
            </option>
          ))}
        </select>
        {errorFor('chain') && (
          <span role="alert" className="text-rose-700">
            {errorFor('chain')}
          </span>
        )}
      </label>
      <Field
        label="Contract address"
        name="address"
        required
        defaultValue={state.values?.address}
        error={errorFor('address')}
        placeholder="0x…"
      />
      <Field label="Label (optional)" name="label" defaultValue={state.values?.label} placeholder="Game items" />
      <label className="flex flex-col gap-1.5 text-sm font-medium text-slate-800">
        ABI (optional, JSON)
        <textarea
          name="abi"
          rows={3}
          defaultValue={state.values?.abi}
          aria-invalid={errorFor('abi') ? true : undefined}
          className="w-full min-w-0 rounded-lg border border-slate-300 p-2 font-mono text-xs"
          placeholder='[{"type":"function","name":"mint",…}]'
        />
        {errorFor('abi') && (
          <span role="alert" className="text-rose-700">
            {errorFor('abi')}
          </span>
        )}
      </label>
      <StepUpFields error={fieldError(state, 'pin')} />
      <Button type="submit" disabled={pending}>
        {pending ? 'Reading the contract…' : 'Register contract'}
      </Button>
    </form>
  );
}

export function ContractCard({ contract, canManage }: { contract: ContractView; canManage: boolean }) {
  const { minter } = contract;
  return (
    <section
      className="flex min-w-0 flex-col gap-3 rounded-xl bg-white p-4 ring-1 ring-slate-200 sm:p-5"
      data-testid="contract"
      aria-label={contract.address}
    >
      <div>
        <h2 className="font-semibold">
          {contract.label ?? contract.name ?? 'Contract'} {contract.symbol && <span className="text-slate-500">({contract.symbol})</span>}
        </h2>
        <p className="break-all font-mono text-xs text-slate-600">
          {contract.chainName} · {contract.address}
        </p>
      </div>
      <dl className="grid gap-x-4 gap-y-1 text-sm sm:grid-cols-[10rem_1fr]">
        <dt className="text-slate-500">Found</dt>
        <dd data-testid="contract-kind" className="break-words">
          {KIND_LABEL[contract.kind] ?? contract.kind}
          {contract.decimals !== null && `, ${contract.decimals} decimals`}
          {contract.interfaces.length > 0 && <span className="text-slate-500"> · {contract.interfaces.join(', ')}</span>}
        </dd>
        <dt className="text-slate-500">Callable functions</dt>
        <dd className="font-mono text-xs break-all" data-testid="contract-functions">
          {contract.functions.length
            ? contract.functions.map((fn) => fn.signature).join(', ')
            : 'none found — upload the ABI, or type the signature in a rule'}
          {contract.hasUploadedAbi && <span className="font-sans text-slate-500"> (from the uploaded ABI)</span>}
        </dd>
        <dt className="text-slate-500">Service wallet may mint</dt>
        <dd data-testid="minter-status" className="break-words">
          {minter.held === true ? (
            <span className="font-medium text-emerald-700">Yes</span>
          ) : minter.held === false ? (
            <span className="font-medium text-rose-700">No — {minter.howToGrant}</span>
          ) : (
            <span className="text-slate-600">Unknown — {minter.howToGrant}</span>
          )}
        </dd>
      </dl>
      <h3 className="text-sm font-semibold">When a charge succeeds</h3>
      {contract.rules.length ? (
        <ul className="flex flex-col gap-2 text-sm">
          {contract.rules.map((rule) => (
            <li key={rule.id} className="flex min-w-0 flex-wrap items-center gap-x-3 gap-y-1" data-testid="fulfilment-rule">
              <span className="font-mono text-xs break-all">{rule.function}</span>
              <span className="text-slate-600">with {rule.bindings.join(', ') || 'no arguments'}</span>
              <span className="text-slate-600" data-testid="rule-price-list">
                {rule.priceList ?? 'No price list: never fires on charges of publishable keys'}
              </span>
              <RuleToggle ruleId={rule.id} enabled={rule.enabled} canManage={canManage} />
            </li>
          ))}
        </ul>
      ) : (
        <p className="text-sm text-slate-600">No rule yet.</p>
      )}
      {canManage && <AddRuleForm contract={contract} />}
    </section>
  );
}

function RuleToggle({ ruleId, enabled, canManage }: { ruleId: string; enabled: boolean; canManage: boolean }) {
  const [state, action, pending] = useActionState<FormState, FormData>(setRuleEnabledAction, {});
  return (
    <form action={action} className="flex flex-wrap items-center gap-2" aria-label={`${enabled ? 'Pause' : 'Resume'} rule ${ruleId}`}>
      <input type="hidden" name="ruleId" value={ruleId} />
      <input type="hidden" name="enabled" value={String(!enabled)} />
      <span className={`text-xs font-medium ${enabled ? 'text-emerald-700' : 'text-slate-500'}`}>{enabled ? 'Active' : 'Paused'}</span>
      {canManage && (
        <>
          <StepUpFields error={fieldError(state, 'pin')} />
          <Button type="submit" variant="secondary" className="min-h-8 px-2 text-xs" disabled={pending}>
            {enabled ? 'Pause' : 'Resume'}
          </Button>
        </>
      )}
      {state.error && state.error.param !== 'pin' && (
        <span role="alert" className="text-xs text-rose-700">
          {state.error.message}
        </span>
      )}
    </form>
  );
}

type Source = 'recipient' | 'quantity' | 'item.name' | 'item.quantity' | 'item.amount' | 'metadata' | 'value';
const SOURCES: { value: Source; label: string }[] = [
  { value: 'recipient', label: 'Recipient (toAddress, else the payer)' },
  { value: 'quantity', label: 'Quantity (items’ total)' },
  { value: 'metadata', label: 'Charge metadata key…' },
  { value: 'item.name', label: 'The item’s name' },
  { value: 'item.quantity', label: 'The item’s quantity' },
  { value: 'item.amount', label: 'The item’s amount' },
  { value: 'value', label: 'Fixed value…' },
];
const OTHER = '__other__';

/** Parameter types of a typed signature such as mint(address,uint256): simple types only (the server checks it for real). */
function inputsOf(signature: string): FunctionView['inputs'] {
  const inside = signature.match(/\(([^)]*)\)/)?.[1]?.trim();
  if (!inside) return [];
  return inside.split(',').map((part) => {
    const [type = '', name = ''] = part.trim().split(/\s+/);
    return { type, name };
  });
}

function defaultSource(type: string, index: number): Source {
  if (type === 'address') return 'recipient';
  if (/int/.test(type)) return index === 1 ? 'metadata' : 'quantity';
  return 'value';
}

function AddRuleForm({ contract }: { contract: ContractView }) {
  const [state, action, pending] = useActionState<FormState, FormData>(createRuleAction, {});
  const [chosen, setChosen] = useState(contract.functions[0]?.signature ?? OTHER);
  const [typed, setTyped] = useState('');
  const inputs = chosen === OTHER ? inputsOf(typed) : (contract.functions.find((fn) => fn.signature === chosen)?.inputs ?? []);
  const [sources, setSources] = useState<Record<string, Source>>({});
  const [texts, setTexts] = useState<Record<string, string>>({});
  const [priceToken, setPriceToken] = useState('');
  const [priceItemId, setPriceItemId] = useState('metadata.itemId');
  const [priceLines, setPriceLines] = useState('');
  const keyOf = (index: number) => `${chosen === OTHER ? typed : chosen}#${index}`;
  const bindings = inputs.map((input, index) => {
    const source = sources[keyOf(index)] ?? defaultSource(input.type, index);
    const text = texts[keyOf(index)] ?? (source === 'metadata' ? 'itemId' : '');
    if (source === 'metadata') return { source, key: text };
    if (source === 'value') return { source, value: text };
    if (source.startsWith('item.')) return { source: 'item', field: source.slice(5) };
    return { source };
  });
  // "sword = 2.5" per line → the price list the server validates (schemas.ts priceListInputSchema).
  const prices = priceLines
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => {
      const at = line.lastIndexOf('=');
      return at < 0 ? { item: line, minUnitPrice: '' } : { item: line.slice(0, at).trim(), minUnitPrice: line.slice(at + 1).trim() };
    });
  const priceList = prices.length ? JSON.stringify({ token: priceToken, itemId: priceItemId, prices }) : '';
  return (
    <form
      action={action}
      className="flex min-w-0 flex-col gap-3 border-t border-slate-200 pt-3"
      aria-label={`Add a rule to ${contract.address}`}
    >
      <input type="hidden" name="contractId" value={contract.id} />
      <input type="hidden" name="bindings" value={JSON.stringify(bindings)} />
      <input type="hidden" name="function" value={chosen === OTHER ? typed : chosen} />
      <input type="hidden" name="priceList" value={priceList} />
      {state.notice && <Notice tone="success">{state.notice}</Notice>}
      <label className="flex flex-col gap-1.5 text-sm font-medium text-slate-800">
        Call
        <select value={chosen} onChange={(event) => setChosen(event.target.value)} className={selectClass} aria-label="Function to call">
          {contract.functions.map((fn) => (
            <option key={fn.signature} value={fn.signature}>
              {fn.signature}
            </option>
          ))}
          <option value={OTHER}>Another function (type its signature)…</option>
        </select>
      </label>
      {chosen === OTHER && (
        <Field
          label="Function signature"
          value={typed}
          onChange={(event) => setTyped(event.target.value)}
          placeholder="mint(address,uint256,uint256)"
        />
      )}
      {inputs.map((input, index) => {
        const source = sources[keyOf(index)] ?? defaultSource(input.type, index);
        const needsText = source === 'metadata' || source === 'value';
        return (
          <div key={keyOf(index)} className="flex min-w-0 flex-col gap-2 text-sm sm:flex-row sm:flex-wrap sm:items-end">
            <label className="flex min-w-0 flex-col gap-1">
              <span className="font-mono text-xs">
                {input.name || `arg ${index + 1}`} ({input.type})
              </span>
              <select
                value={source}
                onChange={(event) => setSources({ ...sources, [keyOf(index)]: event.target.value as Source })}
                className={selectClass}
                aria-label={`Source of ${input.name || `argument ${index + 1}`}`}
              >
                {SOURCES.map((option) => (
                  <option key={option.value} value={option.value}>
                    {option.label}
                  </option>
                ))}
              </select>
            </label>
            {needsText && (
              <input
                value={texts[keyOf(index)] ?? (source === 'metadata' ? 'itemId' : '')}
                onChange={(event) => setTexts({ ...texts, [keyOf(index)]: event.target.value })}
                aria-label={
                  source === 'metadata'
                    ? `Metadata key for ${input.name || `argument ${index + 1}`}`
                    : `Value of ${input.name || `argument ${index + 1}`}`
                }
                className="min-h-11 w-full min-w-0 rounded-lg border border-slate-300 px-3 sm:w-auto"
                placeholder={source === 'metadata' ? 'itemId' : 'value'}
              />
            )}
          </div>
        );
      })}
      <fieldset className="flex min-w-0 flex-col gap-2 text-sm">
        <legend className="font-medium text-slate-800">Price list (for charges of publishable keys)</legend>
        <p className="text-slate-600">
          A charge created with a publishable key carries the price the payer’s browser sent. Such a charge fires this rule only if it pays
          at least the minimum per unit of every item it names. Leave empty to fulfil charges of secret keys only.
        </p>
        <div className="flex min-w-0 flex-col gap-2 sm:flex-row">
          <label className="flex min-w-0 flex-col gap-1">
            Token (symbol or address)
            <input
              value={priceToken}
              onChange={(event) => setPriceToken(event.target.value)}
              className="min-h-11 w-full min-w-0 rounded-lg border border-slate-300 px-3"
              placeholder="USDC"
            />
          </label>
          <label className="flex min-w-0 flex-col gap-1">
            Item id from
            <input
              value={priceItemId}
              onChange={(event) => setPriceItemId(event.target.value)}
              className="min-h-11 w-full min-w-0 rounded-lg border border-slate-300 px-3"
              placeholder="metadata.itemId or item.name"
            />
          </label>
        </div>
        <label className="flex min-w-0 flex-col gap-1">
          Minimum price per unit, one item per line (item id = price)
          <textarea
            value={priceLines}
            onChange={(event) => setPriceLines(event.target.value)}
            rows={3}
            className="w-full min-w-0 rounded-lg border border-slate-300 p-2 font-mono text-xs"
            placeholder={'7 = 2.5\n8 = 10'}
          />
        </label>
      </fieldset>
      <StepUpFields error={fieldError(state, 'pin')} />
      {state.error && state.error.param !== 'pin' && (
        <p role="alert" className="text-sm text-rose-700">
          {state.error.message}
        </p>
      )}
      <Button type="submit" variant="secondary" disabled={pending} className="self-start">
        {pending ? 'Checking…' : 'Add rule'}
      </Button>
    </form>
  );
}
