/**
 * Functions a fulfilment rule may call: read from an uploaded ABI (JSON, as solc, Hardhat and Foundry
 * write it), or — for a contract Chargeport recognised without one — the usual mint functions of game
 * item contracts, kept when their 4-byte selector is in the contract's bytecode.
 */
import { z } from 'zod';
import { parseAbiItem, toFunctionSelector, toFunctionSignature, type AbiFunction } from 'viem';
import { AppError } from '@/lib/errors';

/** Mint functions of common ERC-1155 / ERC-721 contracts (OpenZeppelin wizard, thirdweb, Manifold-style). */
const KNOWN_MINT_FUNCTIONS = [
  'function mint(address to, uint256 id, uint256 amount)',
  'function mint(address to, uint256 id, uint256 amount, bytes data)',
  'function mintTo(address to, uint256 id, uint256 amount)',
  'function safeMint(address to)',
  'function safeMint(address to, uint256 tokenId)',
  'function safeMint(address to, string uri)',
  'function mint(address to)',
  'function mint(address to, uint256 amountOrId)',
  'function mintTo(address to)',
] as const;

export function knownMintFunctions(): AbiFunction[] {
  return KNOWN_MINT_FUNCTIONS.map((text) => parseAbiItem(text) as AbiFunction);
}

const MAX_ABI_BYTES = 512 * 1024;

const abiParameterSchema: z.ZodType<{ name?: string; type: string; components?: unknown[]; internalType?: string }> = z.lazy(() =>
  z.object({
    name: z.string().max(200).optional(),
    type: z.string().min(1).max(200),
    internalType: z.string().max(400).optional(),
    indexed: z.boolean().optional(),
    components: z.array(abiParameterSchema).max(64).optional(),
  }),
);

const abiItemSchema = z.looseObject({
  type: z.string(),
  name: z.string().max(200).optional(),
  inputs: z.array(abiParameterSchema).max(64).optional(),
  outputs: z.array(abiParameterSchema).max(64).optional(),
  stateMutability: z.enum(['pure', 'view', 'nonpayable', 'payable']).optional(),
});

/** An uploaded ABI → its functions (all of them; callers pick the state-changing ones). */
export function parseUploadedAbi(text: string): AbiFunction[] {
  if (Buffer.byteLength(text) > MAX_ABI_BYTES) {
    throw new AppError('invalid_abi', `The ABI is larger than ${MAX_ABI_BYTES / 1024} KiB.`, { param: 'abi' });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new AppError('invalid_abi', 'The ABI is not JSON. Paste the contract’s ABI array (or its build artifact).', { param: 'abi' });
  }
  // A whole build artifact ({ abi: [...] }) is accepted too.
  const items = Array.isArray(json) ? json : (json as { abi?: unknown })?.abi;
  const parsed = z.array(abiItemSchema).max(2_000).safeParse(items);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new AppError('invalid_abi', `The ABI is not a list of ABI entries (at ${issue.path.join('.') || 'the top'}: ${issue.message}).`, {
      param: 'abi',
    });
  }
  const functions = parsed.data
    .filter((item) => item.type === 'function' && item.name)
    .map((item) => ({
      type: 'function',
      name: item.name!,
      inputs: item.inputs ?? [],
      outputs: item.outputs ?? [],
      stateMutability: item.stateMutability ?? 'nonpayable',
    })) as AbiFunction[];
  for (const fn of functions) {
    try {
      toFunctionSelector(fn);
    } catch {
      throw new AppError('invalid_abi', `The ABI’s function ${fn.name} has a parameter type that is not a Solidity type.`, {
        param: 'abi',
      });
    }
  }
  if (!functions.length) throw new AppError('invalid_abi', 'The ABI has no functions.', { param: 'abi' });
  return functions;
}

export function isStateChanging(fn: AbiFunction): boolean {
  return fn.stateMutability === 'nonpayable' || fn.stateMutability === 'payable';
}

/** `mint(address,uint256,uint256)`: how rules name a function (overloads differ by their types). */
export function signatureOf(fn: AbiFunction): string {
  return toFunctionSignature(fn);
}

/** Whether the runtime code dispatches on `fn`'s selector (solc's dispatcher pushes each selector: PUSH4). */
export function codeHasFunction(code: string, fn: AbiFunction): boolean {
  const selector = toFunctionSelector(fn).slice(2).toLowerCase();
  return code.toLowerCase().includes(`63${selector}`);
}

/** A signature typed by the merchant ("mint(address,uint256,uint256)" or "function mint(address to, …)"). */
export function parseFunctionSignature(text: string): AbiFunction {
  const trimmed = text.trim().replace(/;$/, '');
  const source = trimmed.startsWith('function ') ? trimmed : `function ${trimmed}`;
  try {
    const item = parseAbiItem(source) as AbiFunction;
    if (item.type !== 'function') throw new Error('not a function');
    return item;
  } catch {
    throw new AppError('function_not_found', `“${text}” is not a function signature such as mint(address,uint256,uint256).`, {
      param: 'function',
    });
  }
}
