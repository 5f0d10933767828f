/**
 * Local EVM nodes (anvil from @foundry-rs/anvil) for chains that have no RPC URL configured.
 * Each runs with the chain's real chain id on loopback, keeps its state in `<dataDir>/anvil/`, and is
 * provisioned with the registry's ERC-20 tokens (DemoToken code planted at the canonical addresses)
 * and funded demo wallets, so a charge can be paid end to end offline.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { createPublicClient, createWalletClient, defineChain, http, type Address, type Hex, type PublicClient } from 'viem';
import { CHAINS, type ChainName } from '@/lib/chains/registry';
import demoTokenArtifact from '@/lib/chains/artifacts/DemoToken.json' with { type: 'json' };
import { findFreePort } from './free-port';
import { localDemoPayerAccount, localMinterAccount } from '@/lib/chains/local-accounts';
export { localDemoPayerAccount, localMinterAccount };
import { provisionLocalSwap } from '@/lib/chains/provision-local-swap';
import { provisionLocalSmartAccounts } from '@/lib/chains/provision-local-smart-accounts';
import { SMART_ACCOUNT_SUPPORT } from '@/lib/smart-accounts/smart-account-support';

/** Whole tokens of each ERC-20 minted to each funded demo wallet. */
export const DEMO_TOKEN_FUNDING = 1_000_000n;

const STOP_GRACE_MS = 5_000;

export interface LocalChainNode {
  chain: ChainName;
  url: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

function anvilBinaryPath(): string {
  const require = createRequire(import.meta.url);
  const arch = process.arch === 'x64' ? 'amd64' : process.arch;
  const pkg = `@foundry-rs/anvil-${process.platform}-${arch}/package.json`;
  const binary = process.platform === 'win32' ? 'anvil.exe' : 'anvil';
  let manifest: string;
  try {
    manifest = require.resolve(pkg);
  } catch {
    // A devDependency (package.json): an install without them (`--omit=dev`) has no local chains.
    throw new Error(
      `No anvil binary (${pkg}): local chains are a development part, installed with the devDependencies; run \`npm install\` without --omit=dev, or configure RPC URLs and set LOCAL_CHAIN_NODES=false`,
    );
  }
  return path.join(path.dirname(manifest), 'bin', binary);
}

export async function startLocalChain(options: {
  chain: ChainName;
  /** Directory for the chain's state file; omit for a throwaway chain (tests). */
  stateDir?: string;
}): Promise<LocalChainNode> {
  const info = CHAINS[options.chain];
  if (info.family !== 'evm' || info.evmChainId === undefined) {
    throw new Error(`${options.chain} has no local node: only EVM chains run on anvil`);
  }
  const port = await findFreePort();
  const args = ['--host', '127.0.0.1', '--port', String(port), '--chain-id', String(info.evmChainId), '--silent'];
  // The chain's fork as ADR 0035 records it: prague (EIP-7702) where the chain has it. Subnet-EVM (DFK) has
  // no anvil fork of its own; prague changes nothing today's path does, and DFK stays on it.
  args.push('--hardfork', SMART_ACCOUNT_SUPPORT[options.chain].localHardfork);
  if (options.stateDir) {
    mkdirSync(options.stateDir, { recursive: true });
    args.push('--state', path.join(options.stateDir, `${options.chain}.json`), '--state-interval', '5');
  }
  const child = spawn(anvilBinaryPath(), args, { stdio: ['ignore', 'ignore', 'inherit'] });
  const url = `http://127.0.0.1:${port}`;
  await waitForRpc(url, child);
  return {
    chain: options.chain,
    url,
    process: child,
    stop: () => stopProcess(child),
  };
}

/** SIGTERM, then SIGKILL after STOP_GRACE_MS: a node that hangs (or is stopped) still ends. */
export async function stopProcess(child: ChildProcess): Promise<void> {
  const exited = () => child.exitCode !== null || child.signalCode !== null;
  if (exited()) return;
  const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
  await gone;
  clearTimeout(timer);
}

async function waitForRpc(url: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`anvil exited with code ${child.exitCode}`);
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      });
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`anvil did not answer at ${url} within 15 s`);
}

const demoTokenAbi = demoTokenArtifact.abi;

/**
 * Plant the registry's ERC-20 tokens and fund the demo wallets. Idempotent: a chain restored from
 * its state file already has them and is left as it is.
 */
export async function provisionLocalChain(options: {
  chain: ChainName;
  url: string;
  /** Wallets to fund with native coin and every demo token (the demo payer is always funded). */
  fundWallets?: Address[];
}): Promise<void> {
  const info = CHAINS[options.chain];
  const viemChain = defineChain({
    id: info.evmChainId!,
    name: info.displayName,
    nativeCurrency: { name: info.tokens[0]!.name, symbol: info.tokens[0]!.symbol, decimals: 18 },
    rpcUrls: { default: { http: [options.url] } },
  });
  const transport = http(options.url);
  const publicClient = createPublicClient({ chain: viemChain, transport });
  const minter = createWalletClient({ chain: viemChain, transport, account: localMinterAccount });
  const wallets = [localDemoPayerAccount.address, ...(options.fundWallets ?? [])];

  for (const token of info.tokens.filter((t) => !t.isNative)) {
    const address = token.address as Address;
    const code = await publicClient.getCode({ address });
    if (code && code !== '0x') continue;
    await publicClient.request({
      method: 'anvil_setCode' as never,
      params: [address, demoTokenArtifact.deployedBytecode as Hex] as never,
    });
    const initHash = await minter.writeContract({
      address,
      abi: demoTokenAbi,
      functionName: 'initialize',
      args: [token.name, token.symbol, token.decimals, localMinterAccount.address],
    });
    await publicClient.waitForTransactionReceipt({ hash: initHash });
    for (const wallet of wallets) {
      const hash = await minter.writeContract({
        address,
        abi: demoTokenAbi,
        functionName: 'mint',
        args: [wallet, DEMO_TOKEN_FUNDING * 10n ** BigInt(token.decimals)],
      });
      await publicClient.waitForTransactionReceipt({ hash });
    }
  }
  // EntryPoint v0.8 and Simple7702Account at their canonical addresses (ADR 0035).
  await provisionLocalSmartAccounts({ url: options.url, deployer: localMinterAccount });
  // The swap on-ramp's demo PZP token and USDC/PZP pool (lib/chains/provision-local-swap.ts).
  if (options.chain === 'BSC') {
    const usdc = info.tokens.find((t) => t.symbol === 'USDC')!.address as Address;
    await provisionLocalSwap({
      url: options.url,
      minter: localMinterAccount,
      usdc,
      fundWallets: wallets,
      fundingPerWallet: DEMO_TOKEN_FUNDING,
    });
  }
}

/**
 * Tops a wallet up on a local chain: 10 000 native coins and DEMO_TOKEN_FUNDING of every demo token, unless it
 * already holds at least a tenth of that. The tokens are minted (Transfer logs); the native coin is set with
 * anvil_setBalance, or with `onTheRecord` sent from the minter in a transaction, which the wallet indexer
 * records like any other inflow, so the ledger counts it (service wallets: reconciliation stays clean).
 * Development seed only.
 */
export async function fundLocalWallet(options: { chain: ChainName; url: string; address: Address; onTheRecord?: boolean }): Promise<void> {
  const info = CHAINS[options.chain];
  const transport = http(options.url);
  const publicClient = createPublicClient({ transport });
  const minter = createWalletClient({ transport, account: localMinterAccount });
  const native = 10_000n * 10n ** 18n;
  if ((await publicClient.getBalance({ address: options.address })) < native / 10n) {
    if (options.onTheRecord) {
      const minterBalance = await publicClient.getBalance({ address: localMinterAccount.address });
      if (minterBalance < native * 2n) await setBalance(publicClient, localMinterAccount.address, native * 10n);
      const hash = await minter.sendTransaction({ to: options.address, value: native, chain: null });
      await publicClient.waitForTransactionReceipt({ hash });
    } else {
      await setBalance(publicClient, options.address, native);
    }
  }
  for (const token of info.tokens.filter((t) => !t.isNative)) {
    const target = DEMO_TOKEN_FUNDING * 10n ** BigInt(token.decimals);
    const balance = (await publicClient.readContract({
      address: token.address as Address,
      abi: demoTokenAbi,
      functionName: 'balanceOf',
      args: [options.address],
    })) as bigint;
    if (balance >= target / 10n) continue;
    const hash = await minter.writeContract({
      address: token.address as Address,
      abi: demoTokenAbi,
      functionName: 'mint',
      args: [options.address, target],
      chain: null,
    });
    await publicClient.waitForTransactionReceipt({ hash });
  }
}

async function setBalance(client: PublicClient, address: Address, amount: bigint): Promise<void> {
  await client.request({ method: 'anvil_setBalance' as never, params: [address, `0x${amount.toString(16)}`] as never });
}
