/**
 * Arguments of a rule's function, bound from a succeeded charge:
 *
 *   recipient          the charge's toAddress, else the address that paid it        → address
 *   quantity           the total quantity of the charge's items (1 for a charge      → uint / int
 *                      without items: one purchase, never a mint of 0)
 *   item.<field>       a field of the charge's item (name, quantity, amount); a      → uint / int / string
 *                      charge with several items cannot say which one is meant
 *   metadata.<key>     a value of the charge's metadata (createCharge `metadata`)    → any simple type
 *   value              a fixed value given with the rule                             → any simple type
 *
 * `checkBindings` refuses at rule creation what can never work (a wrong count, a source that cannot
 * produce the parameter's type, a fixed value that does not parse); `bindArguments` converts at
 * fulfilment time and says what is wrong when a charge's own values do not fit.
 */
import { getAddress, isAddress, isHex, size, type AbiFunction, type AbiParameter } from 'viem';
import type { ArgumentBinding, ChargeRow } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';

type Kind = 'address' | 'uint' | 'int' | 'bool' | 'string' | 'bytes';

const ALLOWED: Record<ArgumentBinding['source'], readonly Kind[]> = {
  recipient: ['address'],
  quantity: ['uint', 'int'],
  item: ['uint', 'int', 'string'],
  metadata: ['address', 'uint', 'int', 'bool', 'string', 'bytes'],
  value: ['address', 'uint', 'int', 'bool', 'string', 'bytes'],
};

function kindOf(type: string): Kind | undefined {
  if (type === 'address') return 'address';
  if (/^uint\d*$/.test(type)) return 'uint';
  if (/^int\d*$/.test(type)) return 'int';
  if (type === 'bool') return 'bool';
  if (type === 'string') return 'string';
  if (/^bytes\d*$/.test(type)) return 'bytes';
  return undefined;
}

export function describeBinding(binding: ArgumentBinding): string {
  switch (binding.source) {
    case 'recipient':
      return 'the recipient (toAddress, else the payer)';
    case 'quantity':
      return 'the quantity (items’ total)';
    case 'item':
      return `the item’s ${binding.field}`;
    case 'metadata':
      return `metadata.${binding.key}`;
    case 'value':
      return `the fixed value “${binding.value}”`;
  }
}

const paramName = (param: AbiParameter, index: number) => `${param.name || `argument ${index + 1}`} (${param.type})`;

/** Throws `argument_not_bindable` for bindings that could never produce the function's arguments. */
export function checkBindings(fn: AbiFunction, bindings: ArgumentBinding[]): void {
  if (bindings.length !== fn.inputs.length) {
    throw new AppError(
      'argument_not_bindable',
      `${fn.name} takes ${fn.inputs.length} argument${fn.inputs.length === 1 ? '' : 's'}; the rule binds ${bindings.length}. Give one source per argument.`,
      { param: 'bindings' },
    );
  }
  fn.inputs.forEach((param, index) => {
    const binding = bindings[index]!;
    const kind = kindOf(param.type);
    if (!kind) {
      throw new AppError(
        'argument_not_bindable',
        `${paramName(param, index)} of ${fn.name} cannot be bound from a charge (arrays and structs are not supported). Choose another function.`,
        { param: `bindings.${index}` },
      );
    }
    if (!ALLOWED[binding.source].includes(kind)) {
      throw new AppError('argument_not_bindable', `${paramName(param, index)} cannot take ${describeBinding(binding)}.`, {
        param: `bindings.${index}`,
      });
    }
    if (binding.source === 'value') {
      try {
        convert(param, binding.value);
      } catch (error) {
        throw new AppError('argument_not_bindable', `${paramName(param, index)}: ${(error as Error).message}`, {
          param: `bindings.${index}`,
        });
      }
    }
  });
}

export interface BoundCall {
  args: unknown[];
  /** The arguments as text, for the timeline and the webhook. */
  display: string[];
  recipient: string | null;
}

/** The charge's values for the rule's function. Throws an Error whose message says what does not fit. */
export function bindArguments(input: {
  fn: AbiFunction;
  bindings: ArgumentBinding[];
  charge: Pick<ChargeRow, 'items' | 'metadata' | 'toAddress'>;
  /** The address that paid (undefined when it cannot be told: several payers, or an unknown sender). */
  payer: string | undefined;
}): BoundCall {
  const { charge } = input;
  const recipient = charge.toAddress ?? input.payer ?? null;
  const args: unknown[] = [];
  const display: string[] = [];
  input.fn.inputs.forEach((param, index) => {
    const binding = input.bindings[index]!;
    const raw = rawValue(binding, charge, recipient);
    try {
      const value = convert(param, raw);
      args.push(value);
      display.push(typeof value === 'bigint' ? value.toString() : String(value));
    } catch (error) {
      throw new Error(`${paramName(param, index)} from ${describeBinding(binding)}: ${(error as Error).message}`);
    }
  });
  return { args, display, recipient };
}

function rawValue(binding: ArgumentBinding, charge: Pick<ChargeRow, 'items' | 'metadata' | 'toAddress'>, recipient: string | null): string {
  switch (binding.source) {
    case 'recipient':
      if (!recipient)
        throw new Error('the charge has no toAddress and its payer cannot be told (several senders); set toAddress on such charges');
      return recipient;
    case 'quantity':
      return charge.items.length ? String(charge.items.reduce((sum, item) => sum + item.quantity, 0)) : '1';
    case 'item': {
      if (charge.items.length !== 1) {
        throw new Error(
          `the charge has ${charge.items.length} items, so “the item’s ${binding.field}” is ambiguous; put the item id in metadata instead`,
        );
      }
      const item = charge.items[0]!;
      return binding.field === 'quantity' ? String(item.quantity) : binding.field === 'amount' ? item.amount : item.name;
    }
    case 'metadata': {
      const value = charge.metadata[binding.key];
      if (value === undefined) throw new Error(`the charge has no metadata.${binding.key}`);
      return value;
    }
    case 'value':
      return binding.value;
  }
}

function convert(param: AbiParameter, raw: string): unknown {
  const text = raw.trim();
  switch (kindOf(param.type)) {
    case 'address':
      if (!isAddress(text, { strict: false })) throw new Error(`“${text}” is not an address`);
      return getAddress(text);
    case 'uint':
    case 'int': {
      if (!/^-?\d{1,78}$/.test(text)) throw new Error(`“${text}” is not a whole number`);
      const value = BigInt(text);
      const bits = BigInt(param.type.replace(/^u?int/, '') || '256');
      const unsigned = param.type.startsWith('u');
      const max = unsigned ? (1n << bits) - 1n : (1n << (bits - 1n)) - 1n;
      const min = unsigned ? 0n : -(1n << (bits - 1n));
      if (value < min || value > max) throw new Error(`${text} does not fit ${param.type}`);
      return value;
    }
    case 'bool':
      if (text !== 'true' && text !== 'false') throw new Error(`“${text}” is not true or false`);
      return text === 'true';
    case 'string':
      return raw;
    case 'bytes': {
      const value = text === '' ? '0x' : text;
      if (!isHex(value)) throw new Error(`“${text}” is not hex (0x…)`);
      const width = Number(param.type.slice(5) || 0);
      if (width && size(value) !== width) throw new Error(`${param.type} needs exactly ${width} bytes`);
      return value;
    }
    default:
      throw new Error(`${param.type} is not supported`);
  }
}
