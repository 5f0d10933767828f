/** The demo game-items ERC-1155 (contracts/GameItems.sol) deployed fresh for a journey on the local Polygon Amoy node. */
import { createPublicClient, createWalletClient, http, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import gameItemsArtifact from '@/lib/chains/artifacts/GameItems.json' with { type: 'json' };
import { localMinterAccount } from '@/scripts/stack/local-chain';
import { localRpc } from './chain';

const abi = gameItemsArtifact.abi;

/** At a fresh address (anvil_setCode, then initialize), with the local minter as its admin. */
export async function deployGameItems(): Promise<{
  address: Address;
  grantMinter: (account: Address) => Promise<void>;
  balanceOf: (owner: Address, id: bigint) => Promise<bigint>;
}> {
  const transport = http(localRpc('POLYGON_AMOY'));
  const client = createPublicClient({ transport });
  const admin = createWalletClient({ account: localMinterAccount, transport });
  const send = async (address: Address, functionName: string, args: unknown[]) =>
    client.waitForTransactionReceipt({ hash: await admin.writeContract({ address, abi, functionName, args, chain: null }) });
  const address = privateKeyToAccount(generatePrivateKey()).address;
  await client.request({ method: 'anvil_setCode' as never, params: [address, gameItemsArtifact.deployedBytecode as Hex] as never });
  await send(address, 'initialize', ['Journey items', 'JRNY', 'https://game.example/items/{id}.json', localMinterAccount.address]);
  return {
    address,
    grantMinter: async (account) => {
      const role = (await client.readContract({ address, abi, functionName: 'MINTER_ROLE' })) as Hex;
      await send(address, 'grantRole', [role, account]);
    },
    balanceOf: async (owner, id) => (await client.readContract({ address, abi, functionName: 'balanceOf', args: [owner, id] })) as bigint,
  };
}
