/**
 * What a contract is, read from its chain: code present; ERC-165 interfaces (ERC-721, ERC-1155, their
 * metadata extensions, AccessControl); otherwise ERC-20's name/symbol/decimals. With an uploaded ABI any
 * contract can be registered; without one, only a recognised one. The functions a rule may call are the
 * uploaded ABI's state-changing ones, or the usual mint functions found in the bytecode (abi.ts).
 * Whether the code dispatches ERC-20's core selectors is noted too: such a contract is a token, never
 * an item contract (refuse-token-contract.ts).
 */
import { erc20Abi, getAddress, parseAbi, type AbiFunction, type Address, type Hex, type PublicClient } from 'viem';
import { publicClientFor } from '@/lib/chains/clients';
import { CHAINS, type ChainName } from '@/lib/chains/registry';
import type { ContractKind } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';
import { cleanDisplayText } from '@/lib/text';
import { codeHasFunction, isStateChanging, knownMintFunctions } from './abi';
import { tokenMovingFunction } from '@/lib/transactions/token-moving-selectors';

const INTERFACE_IDS = {
  erc721: '0x80ac58cd',
  erc721_metadata: '0x5b5e139f',
  erc1155: '0xd9b67a26',
  erc1155_metadata: '0x0e89341c',
  access_control: '0x7965db0b',
} as const satisfies Record<string, Hex>;

const erc165Abi = parseAbi(['function supportsInterface(bytes4 interfaceId) view returns (bool)']);
const namedAbi = parseAbi(['function name() view returns (string)', 'function symbol() view returns (string)']);
/** EIP-1967: where a proxy keeps its implementation's address. */
const IMPLEMENTATION_SLOT = '0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc';

export interface InspectedContract {
  chain: ChainName;
  address: Address;
  kind: ContractKind;
  name: string | null;
  symbol: string | null;
  decimals: number | null;
  interfaces: string[];
  functions: AbiFunction[];
  implementationAddress: Address | null;
  /** The code dispatches ERC-20's transfer, balanceOf and allowance (whatever its views answer): a token. */
  hasErc20Selectors: boolean;
}

const ERC20_CORE = parseAbi([
  'function transfer(address to, uint256 amount)',
  'function balanceOf(address owner) view returns (uint256)',
  'function allowance(address owner, address spender) view returns (uint256)',
]);

export function chainClient(chain: ChainName): PublicClient {
  const client = CHAINS[chain].family === 'evm' ? publicClientFor(chain) : undefined;
  if (!client) throw new AppError('chain_unavailable', `${CHAINS[chain].displayName} is not reachable from this server right now.`);
  return client;
}

export async function inspectContract(input: {
  chain: ChainName;
  address: Address;
  uploadedAbi?: AbiFunction[];
}): Promise<InspectedContract> {
  const client = chainClient(input.chain);
  const chainName = CHAINS[input.chain].displayName;
  const unreachable = () => new AppError('chain_unavailable', `${chainName} is not reachable right now. Try again shortly.`);
  const code = await client.getCode({ address: input.address }).catch(() => {
    throw unreachable();
  });
  if (!code || code === '0x') {
    throw new AppError(
      'contract_not_found',
      `${input.address} has no contract code on ${chainName}: it is a plain account or not deployed there. Check the network and the address.`,
      { param: 'address' },
    );
  }
  const implementation = await implementationOf(client, input.address);
  const logicCode = implementation ? ((await client.getCode({ address: implementation }).catch(() => undefined)) ?? code) : code;

  const read = <T>(call: () => Promise<T>) => call().catch(() => undefined);
  const supports = (id: Hex) =>
    read(() => client.readContract({ address: input.address, abi: erc165Abi, functionName: 'supportsInterface', args: [id] }));
  const interfaces: string[] = [];
  const isErc165 = (await supports('0x01ffc9a7')) === true && (await supports('0xffffffff')) === false;
  if (isErc165) {
    interfaces.push('erc165');
    for (const [name, id] of Object.entries(INTERFACE_IDS)) if ((await supports(id)) === true) interfaces.push(name);
  }
  const [name, symbol] = await Promise.all([
    read(() => client.readContract({ address: input.address, abi: namedAbi, functionName: 'name' })),
    read(() => client.readContract({ address: input.address, abi: namedAbi, functionName: 'symbol' })),
  ]);
  let kind: ContractKind = interfaces.includes('erc1155') ? 'erc1155' : interfaces.includes('erc721') ? 'erc721' : 'other';
  let decimals: number | null = null;
  if (kind === 'other') {
    const [erc20Decimals, supply] = await Promise.all([
      read(() => client.readContract({ address: input.address, abi: erc20Abi, functionName: 'decimals' })),
      read(() => client.readContract({ address: input.address, abi: erc20Abi, functionName: 'totalSupply' })),
    ]);
    if (erc20Decimals !== undefined && supply !== undefined && symbol !== undefined) {
      kind = 'erc20';
      decimals = erc20Decimals;
      interfaces.push('erc20');
    }
  }
  if (kind === 'other' && !input.uploadedAbi) {
    throw new AppError(
      'abi_required',
      'Chargeport could not recognise this contract (no ERC-165 interface of ERC-721 or ERC-1155, and not an ERC-20). Upload its ABI (the JSON your compiler wrote) to register it.',
      { param: 'abi' },
    );
  }
  // Token-moving functions are never offered (create-rule.ts refuses them by selector anyway).
  const functions = (
    input.uploadedAbi ? input.uploadedAbi.filter(isStateChanging) : knownMintFunctions().filter((fn) => codeHasFunction(logicCode, fn))
  ).filter((fn) => !tokenMovingFunction(fn));
  return {
    chain: input.chain,
    address: input.address,
    kind,
    name: clean(name),
    symbol: clean(symbol),
    decimals,
    interfaces,
    functions,
    implementationAddress: implementation,
    hasErc20Selectors: ERC20_CORE.every((fn) => codeHasFunction(logicCode, fn) || codeHasFunction(code, fn)),
  };
}

async function implementationOf(client: PublicClient, address: Address): Promise<Address | null> {
  const slot = await client.getStorageAt({ address, slot: IMPLEMENTATION_SLOT }).catch(() => undefined);
  if (!slot || BigInt(slot) === 0n) return null;
  return getAddress(`0x${slot.slice(-40)}`);
}

/** On-chain strings are untrusted display text: trimmed, bounded, without control characters. */
function clean(value: string | undefined): string | null {
  if (value === undefined) return null;
  return cleanDisplayText(value).slice(0, 100) || null;
}
