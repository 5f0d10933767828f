/**
 * The smart-account contracts on a local development chain (docs/adr/0035): the ERC-4337 EntryPoint v0.8
 * and Simple7702Account, created from `@account-abstraction/contracts` 0.8.0's own compiled artifacts
 * through the deterministic CREATE2 deployer that anvil ships, with the salts of the public deployments.
 * They land at their canonical addresses with the canonical bytes (Simple7702Account names the EntryPoint
 * by that address), so the app finds them as it would on Polygon or BSC. Idempotent: a chain restored from
 * its state file already has them.
 */
import { concat, createPublicClient, createWalletClient, http, type Address, type Hex, type LocalAccount } from 'viem';
import entryPointArtifact from '@/lib/chains/artifacts/EntryPointV08.json' with { type: 'json' };
import simple7702Artifact from '@/lib/chains/artifacts/Simple7702Account.json' with { type: 'json' };
import { ENTRY_POINT_V08_ADDRESS, SIMPLE_7702_ACCOUNT_ADDRESS } from './smart-account-contracts';

/** Arachnid's deterministic deployment proxy (anvil has it at genesis). */
const CREATE2_DEPLOYER: Address = '0x4e59b44847b379578588920cA78FbF26c0B4956C';

const CONTRACTS = [
  { artifact: entryPointArtifact, address: ENTRY_POINT_V08_ADDRESS },
  { artifact: simple7702Artifact, address: SIMPLE_7702_ACCOUNT_ADDRESS },
].map(({ artifact, address }) => ({
  name: artifact.contractName,
  address,
  salt: artifact.create2Salt as Hex,
  bytecode: artifact.bytecode as Hex,
}));

export async function provisionLocalSmartAccounts(input: { url: string; deployer: LocalAccount }): Promise<void> {
  const transport = http(input.url);
  const client = createPublicClient({ transport });
  const wallet = createWalletClient({ transport, account: input.deployer });
  const hasCode = async (address: Address) => ((await client.getCode({ address })) ?? '0x') !== '0x';
  if (!(await hasCode(CREATE2_DEPLOYER))) throw new Error('the local chain has no CREATE2 deployer (anvil ships one at genesis)');
  for (const contract of CONTRACTS) {
    if (await hasCode(contract.address)) continue;
    const hash = await wallet.sendTransaction({
      to: CREATE2_DEPLOYER,
      data: concat([contract.salt, contract.bytecode]),
      chain: null,
      gas: 8_000_000n,
    });
    const receipt = await client.waitForTransactionReceipt({ hash });
    if (receipt.status !== 'success' || !(await hasCode(contract.address))) {
      throw new Error(`${contract.name} did not land at ${contract.address}: are the artifacts the canonical ones?`);
    }
  }
}
