/**
 * Only item contracts may be registered for fulfilment (finding N3): a rule on a token contract makes
 * the service wallet — which holds the merchant's funds — call the token. Refused with
 * `contract_is_token` (422), whichever of these says "token":
 *
 *  1. a token of the network registry (lib/chains/registry.ts), e.g. USDC;
 *  2. a custom token any merchant added on that network (Tokens tab, merchant_tokens);
 *  3. a contract whose `balanceOf(service wallet)` answers non-zero: the wallet holds some of it;
 *  4. a contract recognised as an ERC-20 (name, symbol, decimals, totalSupply answer), or whose code
 *     dispatches ERC-20's `transfer`, `balanceOf` and `allowance` — an ERC-20 whatever its views say.
 *     Item contracts (ERC-721, ERC-1155) have no `transfer(address,uint256)` nor `allowance`.
 *
 * `isKnownToken` (1 and 2) is asked again before every fulfilment call, for contracts registered before
 * this check existed (start-fulfilments.ts).
 */
import { and, eq, sql } from 'drizzle-orm';
import { parseAbi, type Address } from 'viem';
import { CHAINS, findToken, type ChainName } from '@/lib/chains/registry';
import type { DbOrTx } from '@/lib/db/client';
import { merchantTokens } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';
import { chainClient, type InspectedContract } from './inspect-contract';

const balanceOfAbi = parseAbi(['function balanceOf(address owner) view returns (uint256)']);

/** The registry or custom token at `address` on `chain`, as "USDC" or "custom token XYZ"; undefined when none. */
export async function isKnownToken(db: DbOrTx, input: { chain: ChainName; address: string }): Promise<string | undefined> {
  const registry = findToken(CHAINS[input.chain], input.address);
  if (registry) return registry.symbol;
  const [custom] = await db
    .select({ symbol: merchantTokens.symbol })
    .from(merchantTokens)
    .where(and(eq(merchantTokens.chain, input.chain), eq(sql`lower(${merchantTokens.address})`, input.address.toLowerCase())))
    .limit(1);
  return custom ? `the custom token ${custom.symbol}` : undefined;
}

export async function refuseTokenContract(db: DbOrTx, input: { inspected: InspectedContract; serviceWallet: Address }): Promise<void> {
  const { inspected } = input;
  const network = CHAINS[inspected.chain].displayName;
  const refuse = (why: string) =>
    new AppError(
      'contract_is_token',
      `${inspected.address} on ${network} ${why}. Fulfilment rules call item contracts only (ERC-721, ERC-1155 or your own game contract): your service wallet holds your funds, and a rule on a token could hand them over.`,
      { param: 'address' },
    );
  const known = await isKnownToken(db, inspected);
  if (known) throw refuse(`is ${known}, a token Chargeport accepts`);
  if (inspected.kind === 'erc20' || inspected.hasErc20Selectors) throw refuse('is an ERC-20 token');
  const balance = await chainClient(inspected.chain)
    .readContract({ address: inspected.address, abi: balanceOfAbi, functionName: 'balanceOf', args: [input.serviceWallet] })
    .catch(() => 0n);
  if (balance > 0n) throw refuse(`reports a balance of ${balance} for your service wallet ${input.serviceWallet}: the wallet holds it`);
}
