/**
 * Whether the merchant's service wallet may mint on a contract, as the contract itself says: OpenZeppelin
 * AccessControl (`hasRole(MINTER_ROLE, wallet)`), an `isMinter(address)` view, or Ownable's `owner()`.
 * `unknown` when the contract has none of them (the first fulfilment's simulation will tell).
 */
import { getAddress, keccak256, parseAbi, stringToHex, type Address } from 'viem';
import { type ChainName } from '@/lib/chains/registry';
import type { MerchantContractRow } from '@/lib/db/schema';
import { chainClient } from './inspect-contract';

export interface MinterStatus {
  mechanism: 'access_control' | 'is_minter' | 'owner' | 'unknown';
  /** null: could not be read. */
  held: boolean | null;
  /** What to do to grant it, in the merchant's words. */
  howToGrant: string;
}

const viewsAbi = parseAbi([
  'function MINTER_ROLE() view returns (bytes32)',
  'function hasRole(bytes32 role, address account) view returns (bool)',
  'function isMinter(address account) view returns (bool)',
  'function owner() view returns (address)',
]);

export async function readMinterStatus(
  contract: Pick<MerchantContractRow, 'chain' | 'address' | 'interfaces'>,
  wallet: string,
): Promise<MinterStatus> {
  const address = contract.address as Address;
  const account = getAddress(wallet);
  let client;
  try {
    client = chainClient(contract.chain as ChainName);
  } catch {
    return { mechanism: 'unknown', held: null, howToGrant: 'The network is not reachable from this server right now.' };
  }
  const read = <T>(call: () => Promise<T>) => call().catch(() => undefined);
  const role =
    (await read(() => client.readContract({ address, abi: viewsAbi, functionName: 'MINTER_ROLE' }))) ??
    keccak256(stringToHex('MINTER_ROLE'));
  const hasRole = await read(() => client.readContract({ address, abi: viewsAbi, functionName: 'hasRole', args: [role, account] }));
  if (hasRole !== undefined || contract.interfaces.includes('access_control')) {
    return {
      mechanism: 'access_control',
      held: hasRole ?? null,
      howToGrant: `From the contract’s admin, call grantRole(MINTER_ROLE, ${account}) (MINTER_ROLE = ${role}).`,
    };
  }
  const isMinter = await read(() => client.readContract({ address, abi: viewsAbi, functionName: 'isMinter', args: [account] }));
  if (isMinter !== undefined) return { mechanism: 'is_minter', held: isMinter, howToGrant: `Make ${account} a minter of the contract.` };
  const owner = await read(() => client.readContract({ address, abi: viewsAbi, functionName: 'owner' }));
  if (owner !== undefined) {
    return {
      mechanism: 'owner',
      held: getAddress(owner) === account,
      howToGrant: `Transfer the contract’s ownership to ${account}, or give it a minter role.`,
    };
  }
  return { mechanism: 'unknown', held: null, howToGrant: `Allow ${account} to call the rule’s function.` };
}
