import { erc20Abi, type Hex } from 'viem';
import { publicClientFor } from '@/lib/chains/clients';
import type { ChainName, TokenInfo } from '@/lib/chains/registry';

/** A wallet's balance of one token, in base units; undefined when the chain cannot be reached. */
export async function tokenBalance(chain: ChainName, token: TokenInfo, address: string): Promise<bigint | undefined> {
  const client = publicClientFor(chain);
  if (!client) return undefined;
  try {
    return token.isNative
      ? await client.getBalance({ address: address as Hex })
      : await client.readContract({ address: token.address as Hex, abi: erc20Abi, functionName: 'balanceOf', args: [address as Hex] });
  } catch {
    return undefined;
  }
}
