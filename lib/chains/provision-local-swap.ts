/**
 * The swap on-ramp's exchange on the local development BNB Smart Chain: a demo PZP token (DemoToken,
 * 18 decimals) and a Uniswap V2-style factory, router and USDC/PZP pair (contracts/DemoSwap.sol),
 * seeded with 1 000 000 PZP : 50 000 USDC (0.05 USDC per PZP).
 *
 * Token, factory and router sit at fixed addresses (their runtime code planted with anvil_setCode, then
 * initialized, like the demo tokens), so the app finds them without a deployment record; the pair is
 * created by the factory and found through it. Every step checks the chain first, so provisioning is
 * idempotent across restarts (anvil keeps its state under .data/anvil).
 */
import {
  createPublicClient,
  createWalletClient,
  erc20Abi,
  http,
  keccak256,
  maxUint256,
  slice,
  stringToHex,
  getAddress,
  zeroAddress,
  type Address,
  type Hex,
  type LocalAccount,
} from 'viem';
import demoTokenArtifact from '@/lib/chains/artifacts/DemoToken.json' with { type: 'json' };
import factoryArtifact from '@/lib/chains/artifacts/DemoSwapFactory.json' with { type: 'json' };
import routerArtifact from '@/lib/chains/artifacts/DemoSwapRouter.json' with { type: 'json' };
import pairArtifact from '@/lib/chains/artifacts/DemoSwapPair.json' with { type: 'json' };

/** A fixed address nobody holds a key for: the last 20 bytes of keccak256(label). */
const plantedAddress = (label: string): Address => getAddress(slice(keccak256(stringToHex(label)), 12));

export const LOCAL_SWAP_ADDRESSES = {
  pzp: plantedAddress('chargeport:local-bsc:PZP'),
  factory: plantedAddress('chargeport:local-bsc:DemoSwapFactory'),
  router: plantedAddress('chargeport:local-bsc:DemoSwapRouter'),
} as const;

export const DEMO_PZP = { symbol: 'PZP', name: 'PZP (local demo)', decimals: 18 } as const;

/** The pool's seed liquidity, in base units (both tokens have 18 decimals on BSC). */
export const LOCAL_POOL_SEED = { pzp: 1_000_000n * 10n ** 18n, usdc: 50_000n * 10n ** 18n } as const;

export const demoSwapFactoryAbi = factoryArtifact.abi;
const demoSwapRouterAbi = routerArtifact.abi;
export const demoSwapPairAbi = pairArtifact.abi;

export async function provisionLocalSwap(input: {
  url: string;
  /** Mints the demo tokens (the local chain's minter) and provides the seed liquidity. */
  minter: LocalAccount;
  /** The USDC contract of the local BSC node (the registry's address). */
  usdc: Address;
  /** Wallets that also receive demo PZP. */
  fundWallets: Address[];
  /** Whole PZP minted to each funded wallet. */
  fundingPerWallet: bigint;
}): Promise<void> {
  const transport = http(input.url);
  const client = createPublicClient({ transport });
  const minter = createWalletClient({ transport, account: input.minter });
  const { pzp, factory, router } = LOCAL_SWAP_ADDRESSES;
  const send = async (call: Parameters<typeof minter.writeContract>[0]) =>
    client.waitForTransactionReceipt({ hash: await minter.writeContract(call) });
  const plant = (address: Address, code: string) =>
    client.request({ method: 'anvil_setCode' as never, params: [address, code as Hex] as never });
  const hasCode = async (address: Address) => ((await client.getCode({ address })) ?? '0x') !== '0x';

  if (!(await hasCode(pzp))) {
    await plant(pzp, demoTokenArtifact.deployedBytecode);
    await send({
      address: pzp,
      abi: demoTokenArtifact.abi,
      functionName: 'initialize',
      args: [DEMO_PZP.symbol, DEMO_PZP.symbol, DEMO_PZP.decimals, input.minter.address],
      chain: null,
    });
    for (const wallet of input.fundWallets) {
      await send({
        address: pzp,
        abi: demoTokenArtifact.abi,
        functionName: 'mint',
        args: [wallet, input.fundingPerWallet * 10n ** 18n],
        chain: null,
      });
    }
  }
  if (!(await hasCode(factory))) await plant(factory, factoryArtifact.deployedBytecode);
  if (!(await hasCode(router))) await plant(router, routerArtifact.deployedBytecode);
  if ((await client.readContract({ address: router, abi: demoSwapRouterAbi, functionName: 'factory' })) === zeroAddress) {
    await send({ address: router, abi: demoSwapRouterAbi, functionName: 'initialize', args: [factory], chain: null });
  }

  const pair = (await client.readContract({
    address: factory,
    abi: demoSwapFactoryAbi,
    functionName: 'getPair',
    args: [input.usdc, pzp],
  })) as Address;
  const seeded =
    pair !== zeroAddress &&
    ((await client.readContract({ address: pair, abi: demoSwapPairAbi, functionName: 'totalSupply' })) as bigint) > 0n;
  if (seeded) return;
  await send({
    address: pzp,
    abi: demoTokenArtifact.abi,
    functionName: 'mint',
    args: [input.minter.address, LOCAL_POOL_SEED.pzp],
    chain: null,
  });
  await send({
    address: input.usdc,
    abi: demoTokenArtifact.abi,
    functionName: 'mint',
    args: [input.minter.address, LOCAL_POOL_SEED.usdc],
    chain: null,
  });
  await send({ address: pzp, abi: erc20Abi, functionName: 'approve', args: [router, maxUint256], chain: null });
  await send({ address: input.usdc, abi: erc20Abi, functionName: 'approve', args: [router, maxUint256], chain: null });
  await send({
    address: router,
    abi: demoSwapRouterAbi,
    functionName: 'addLiquidity',
    args: [
      input.usdc,
      pzp,
      LOCAL_POOL_SEED.usdc,
      LOCAL_POOL_SEED.pzp,
      LOCAL_POOL_SEED.usdc,
      LOCAL_POOL_SEED.pzp,
      input.minter.address,
      maxUint256,
    ],
    chain: null,
  });
}
