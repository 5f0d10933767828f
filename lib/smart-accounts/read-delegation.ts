/**
 * Whether an address is an EIP-7702 delegated account, and to what: its code is then exactly
 * `0xef0100 ‖ implementation` (23 bytes). Any other code (a contract) or none (a plain EOA) is no delegation.
 */
import { getAddress, type Address, type Hex, type PublicClient } from 'viem';

const DELEGATION_PREFIX = '0xef0100';

/** The implementation `code` delegates to, or undefined. */
export function delegationOf(code: Hex | undefined): Address | undefined {
  if (!code || code.length !== 2 + 23 * 2 || !code.toLowerCase().startsWith(DELEGATION_PREFIX)) return undefined;
  return getAddress(`0x${code.slice(DELEGATION_PREFIX.length)}`);
}

export async function readDelegation(client: PublicClient, address: Address): Promise<Address | undefined> {
  return delegationOf(await client.getCode({ address }));
}
