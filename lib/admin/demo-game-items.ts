/**
 * Development only (the launcher, `npm run dev`): the demo game-items contract (contracts/GameItems.sol,
 * an ERC-1155 with an AccessControl minter role) at a fixed address on the local POLYGON node, the demo
 * merchant's service wallet made a minter, and the demo merchant's Contracts tab holding it with a rule:
 * mint(recipient, metadata.itemId, quantity). Every step checks first, so restarts change nothing.
 */
import { and, eq } from 'drizzle-orm';
import { createPublicClient, createWalletClient, getAddress, http, keccak256, slice, stringToHex, type Address, type Hex } from 'viem';
import gameItemsArtifact from '@/lib/chains/artifacts/GameItems.json' with { type: 'json' };
import { getDb } from '@/lib/db/client';
import { fulfilmentRules, merchantMembers } from '@/lib/db/schema';
import { localMinterAccount } from '@/lib/chains/local-accounts';
import { DEMO_MERCHANT, DEMO_PEOPLE } from '@/lib/admin/seed-demo';
import { ensureMerchantWallets } from '@/lib/keyring/create-wallets';
import { createFulfilmentRule } from '@/lib/contracts/create-rule';
import { registerContract } from '@/lib/contracts/register-contract';

/** A fixed address nobody holds a key for (as the swap on-ramp's local contracts). */
const DEMO_GAME_ITEMS_ADDRESS: Address = getAddress(slice(keccak256(stringToHex('chargeport:local-polygon:GameItems')), 12));

export async function provisionDemoGameItems(input: { url: string }): Promise<Address> {
  const transport = http(input.url);
  const client = createPublicClient({ transport });
  const admin = createWalletClient({ transport, account: localMinterAccount });
  const address = DEMO_GAME_ITEMS_ADDRESS;
  const abi = gameItemsArtifact.abi;
  const send = async (functionName: string, args: unknown[]) =>
    client.waitForTransactionReceipt({ hash: await admin.writeContract({ address, abi, functionName, args, chain: null }) });

  if (((await client.getCode({ address })) ?? '0x') === '0x') {
    await client.request({ method: 'anvil_setCode' as never, params: [address, gameItemsArtifact.deployedBytecode as Hex] as never });
    await send('initialize', ['Chargeport demo items', 'ITEM', 'https://items.example/{id}.json', localMinterAccount.address]);
  }
  const wallet = (await ensureMerchantWallets(getDb(), DEMO_MERCHANT.id)).find((w) => w.family === 'evm')!.address as Address;
  const role = (await client.readContract({ address, abi, functionName: 'MINTER_ROLE' })) as Hex;
  if (!(await client.readContract({ address, abi, functionName: 'hasRole', args: [role, wallet] })))
    await send('grantRole', [role, wallet]);

  const [owner] = await getDb()
    .select({ userId: merchantMembers.userId })
    .from(merchantMembers)
    .where(and(eq(merchantMembers.merchantId, DEMO_MERCHANT.id), eq(merchantMembers.role, 'owner')));
  // The demo owner confirms with their PIN, as any owner would (registering and rules need step-up).
  const member = { userId: owner!.userId, merchantId: DEMO_MERCHANT.id, mode: 'live' as const, stepUp: { pin: DEMO_PEOPLE.owner.pin } };
  const contract = await registerContract({ ...member, values: { chain: 'POLYGON', address, label: 'Demo game items' } });
  const [rule] = await getDb().select({ id: fulfilmentRules.id }).from(fulfilmentRules).where(eq(fulfilmentRules.contractId, contract.id));
  if (!rule) {
    await createFulfilmentRule({
      ...member,
      values: {
        contractId: contract.id,
        function: 'mint(address,uint256,uint256)',
        bindings: [{ source: 'recipient' }, { source: 'metadata', key: 'itemId' }, { source: 'quantity' }],
      },
    });
  }
  return address;
}
