/**
 * Driving a private anvil node in scanner tests: signed transactions kept as raw bytes (so the very same
 * transaction can be re-included by a re-organisation), re-organisations, mining, and contracts planted at
 * fresh addresses; payments sent from an outside account.
 */
import {
  createPublicClient,
  createWalletClient,
  defineChain,
  encodeFunctionData,
  erc20Abi,
  http,
  parseEther,
  parseUnits,
  type Account,
  type Address,
  type Hex,
  type PublicClient,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import demoTokenArtifact from '@/lib/chains/artifacts/DemoToken.json' with { type: 'json' };
import nativeForwarderArtifact from '@/lib/chains/artifacts/NativeForwarder.json' with { type: 'json' };
import { CHAINS, type ChainName, type TokenInfo } from '@/lib/chains/registry';
import { localMinterAccount, type LocalChainNode } from '@/scripts/stack/local-chain';
import { outsideTransactions } from '@/lib/chains/clients';

export interface Anvil {
  client: PublicClient;
  /** Signs a transaction from `account` without sending it. */
  sign(account: Account, request: { to: Hex; value?: bigint; data?: Hex }): Promise<Hex>;
  /** Sends raw bytes and waits for the receipt; returns the hash. */
  sendRaw(raw: Hex): Promise<Hex>;
  /** Signs and sends an ERC-20 transfer; returns the raw bytes and the hash. */
  transferToken(account: Account, token: Hex, to: Hex, amount: bigint): Promise<{ raw: Hex; hash: Hex }>;
  /** Signs and sends a native transfer (or a payable call with `data`). */
  sendNative(account: Account, to: Hex, value: bigint, data?: Hex): Promise<{ raw: Hex; hash: Hex }>;
  /**
   * anvil_reorg: replaces the last `depth` blocks by as many new ones, holding `reinclude` (raw transaction,
   * index of the new block counted from the first replaced one). What is not re-included is gone.
   */
  reorg(depth: number, reinclude?: [Hex, number][]): Promise<void>;
  mine(blocks: number): Promise<void>;
  /**
   * Stamps the next block with our clock's time. anvil stamps blocks from its own clock, which a
   * re-organisation (anvil_reorg) sets back by seconds; a network's blocks carry the time they were made.
   */
  stampNextBlockNow(): Promise<void>;
  /** A DemoToken ERC-20 at a fresh address, initialized by the minter (which can mint it). */
  plantToken(symbol: string, decimals: number): Promise<Hex>;
  mintToken(token: Hex, to: Hex, amount: bigint): Promise<void>;
  /** contracts/NativeForwarder.sol at a fresh address. */
  plantForwarder(): Promise<Hex>;
}

export function anvilFor(node: LocalChainNode, chainName: ChainName): Anvil {
  const info = CHAINS[chainName];
  const chain = defineChain({
    id: info.evmChainId!,
    name: info.displayName,
    nativeCurrency: { name: info.tokens[0]!.name, symbol: info.tokens[0]!.symbol, decimals: 18 },
    rpcUrls: { default: { http: [node.url] } },
  });
  // Guarded like the app's clients: a chain request inside a database transaction fails the test.
  const transport = outsideTransactions(http(node.url));
  const client = createPublicClient({ chain, transport }) as PublicClient;
  const request = (method: string, params: unknown[]) => client.request({ method: method as never, params: params as never });
  const walletOf = (account: Account) => createWalletClient({ account, chain, transport });

  const sign: Anvil['sign'] = async (account, tx) => {
    const wallet = walletOf(account);
    const prepared = await wallet.prepareTransactionRequest({ ...tx, account, chain });
    return wallet.signTransaction(prepared as never);
  };
  const sendRaw: Anvil['sendRaw'] = async (raw) => {
    const hash = await client.sendRawTransaction({ serializedTransaction: raw });
    await client.waitForTransactionReceipt({ hash });
    return hash;
  };
  const signAndSend = async (account: Account, tx: { to: Hex; value?: bigint; data?: Hex }) => {
    const raw = await sign(account, tx);
    return { raw, hash: await sendRaw(raw) };
  };
  const plant = async (bytecode: string): Promise<Hex> => {
    const address = privateKeyToAccount(generatePrivateKey()).address;
    await request('anvil_setCode', [address, bytecode]);
    return address;
  };

  return {
    client,
    sign,
    sendRaw,
    transferToken: (account, token, to, amount) =>
      signAndSend(account, { to: token, data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, amount] }) }),
    sendNative: (account, to, value, data) => signAndSend(account, { to, value, ...(data ? { data } : {}) }),
    reorg: async (depth, reinclude = []) => {
      await request('anvil_reorg', [depth, reinclude]);
    },
    mine: async (blocks) => {
      await request('anvil_mine', [`0x${blocks.toString(16)}`]);
    },
    stampNextBlockNow: async () => {
      await request('evm_setNextBlockTimestamp', [Math.ceil(Date.now() / 1000)]);
    },
    async plantToken(symbol, decimals) {
      const address = await plant(demoTokenArtifact.deployedBytecode);
      await signAndSend(localMinterAccount, {
        to: address,
        data: encodeFunctionData({
          abi: demoTokenArtifact.abi,
          functionName: 'initialize',
          args: [`${symbol} token`, symbol, decimals, localMinterAccount.address],
        }),
      });
      return address;
    },
    async mintToken(token, to, amount) {
      await signAndSend(localMinterAccount, {
        to: token,
        data: encodeFunctionData({ abi: demoTokenArtifact.abi, functionName: 'mint', args: [to, amount] }),
      });
    },
    plantForwarder: () => plant(nativeForwarderArtifact.deployedBytecode),
  };
}

export const nativeForwarderAbi = nativeForwarderArtifact.abi;

/** `amount` of `token` (the chain's native coin or an ERC-20) sent by `account` to `to` on `node`, waited for. */
export async function sendTokenFrom(node: LocalChainNode, account: Account, token: TokenInfo, to: Address, amount: string): Promise<Hex> {
  const wallet = createWalletClient({ account, transport: http(node.url) });
  const hash = token.isNative
    ? await wallet.sendTransaction({ to, value: parseEther(amount), chain: null })
    : await wallet.writeContract({
        address: token.address as Address,
        abi: erc20Abi,
        functionName: 'transfer',
        args: [to, parseUnits(amount, token.decimals)],
        chain: null,
      });
  await createPublicClient({ transport: http(node.url) }).waitForTransactionReceipt({ hash });
  return hash;
}
