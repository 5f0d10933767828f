import { createPublicClient, createWalletClient, encodeFunctionData, erc20Abi, http, type Address, type PublicClient } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHAINS } from '@/lib/chains/registry';
import { SIMPLE_7702_ACCOUNT_ADDRESS } from '@/lib/chains/smart-account-contracts';
import {
  fundLocalWallet,
  localMinterAccount,
  provisionLocalChain,
  startLocalChain,
  type LocalChainNode,
} from '@/scripts/stack/local-chain';
import { buildSponsoredCall } from './build-sponsored-call';
import { delegationOf, readDelegation } from './read-delegation';
import { readSponsorFacts } from './read-sponsor-facts';
import { userOperationOutcome } from './user-operation-outcome';

// A private Polygon node (prague): an EOA with USDC and no POL moves it, the relayer paying the gas.
let node: LocalChainNode;
let client: PublicClient;
const USDC = CHAINS.POLYGON.tokens.find((t) => t.symbol === 'USDC')!;
const relayer = privateKeyToAccount(generatePrivateKey());

beforeAll(async () => {
  node = await startLocalChain({ chain: 'POLYGON' });
  await provisionLocalChain({ chain: 'POLYGON', url: node.url });
  client = createPublicClient({ transport: http(node.url) });
  await client.request({ method: 'anvil_setBalance' as never, params: [relayer.address, '0x56bc75e2d63100000'] as never });
});

afterAll(async () => {
  await node.stop();
});

const balanceOf = (address: Address) =>
  client.readContract({ address: USDC.address as Address, abi: erc20Abi, functionName: 'balanceOf', args: [address] });

async function relay(owner: ReturnType<typeof privateKeyToAccount>, to: Address, amount: bigint) {
  const facts = await readSponsorFacts(client, owner.address);
  const call = await buildSponsoredCall({
    owner,
    chainId: CHAINS.POLYGON.evmChainId!,
    facts,
    calls: [
      { to: USDC.address as Address, value: 0n, data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, amount] }) },
    ],
    callGas: 60_000n,
    relayer: relayer.address,
  });
  const wallet = createWalletClient({ account: relayer, transport: http(node.url) });
  const hash = await wallet.sendTransaction({
    to: call.to,
    data: call.data,
    gas: call.gas,
    chain: null,
    ...(call.authorizationList.length ? { authorizationList: call.authorizationList } : {}),
  });
  return { call, facts, receipt: await client.waitForTransactionReceipt({ hash }) };
}

describe('sponsored calls through EIP-7702 and the EntryPoint', () => {
  it('reads a delegation only from the exact 0xef0100 ‖ address code', () => {
    expect(delegationOf(`0xef0100${SIMPLE_7702_ACCOUNT_ADDRESS.slice(2)}`)).toBe(SIMPLE_7702_ACCOUNT_ADDRESS);
    expect(delegationOf('0x')).toBeUndefined();
    expect(delegationOf(`0xef0100${SIMPLE_7702_ACCOUNT_ADDRESS.slice(2)}00`)).toBeUndefined();
    expect(delegationOf(`0x600100${SIMPLE_7702_ACCOUNT_ADDRESS.slice(2)}`)).toBeUndefined();
  });

  it('moves an ERC-20 out of an EOA that holds no native coin, delegating on first use, the relayer paying', async () => {
    const owner = privateKeyToAccount(generatePrivateKey());
    const payee = privateKeyToAccount(generatePrivateKey()).address;
    await fundLocalWallet({ chain: 'POLYGON', url: node.url, address: owner.address });
    await client.request({ method: 'anvil_setBalance' as never, params: [owner.address, '0x0'] as never });
    const held = await balanceOf(owner.address);
    const relayerBefore = await client.getBalance({ address: relayer.address });

    const first = await relay(owner, payee, 5n * 10n ** 6n);
    expect(first.facts.delegatedTo).toBeUndefined();
    expect(first.call.authorizationList).toHaveLength(1);
    expect(first.receipt.status).toBe('success');
    expect(userOperationOutcome(first.receipt, owner.address)).toBe('success');
    expect(await readDelegation(client, owner.address)).toBe(SIMPLE_7702_ACCOUNT_ADDRESS);
    expect(await balanceOf(payee)).toBe(5n * 10n ** 6n);
    expect(first.receipt.gasUsed).toBeLessThan(first.call.gas);

    // Delegated now: no authorization, the next EntryPoint nonce.
    const second = await relay(owner, payee, 1n * 10n ** 6n);
    expect(second.facts.delegatedTo).toBe(SIMPLE_7702_ACCOUNT_ADDRESS);
    expect(second.call.authorizationList).toHaveLength(0);
    expect(second.facts.entryPointNonce).toBe(first.facts.entryPointNonce + 1n);
    expect(await balanceOf(owner.address)).toBe(held - 6n * 10n ** 6n);
    expect(await client.getBalance({ address: owner.address })).toBe(0n);
    const paid = relayerBefore - (await client.getBalance({ address: relayer.address }));
    expect(paid).toBe(first.receipt.gasUsed * first.receipt.effectiveGasPrice + second.receipt.gasUsed * second.receipt.effectiveGasPrice);
  });

  it('reports a reverting inner call although handleOps succeeds', async () => {
    const owner = privateKeyToAccount(generatePrivateKey());
    // No USDC at all: transfer reverts inside execute; the EntryPoint catches it.
    const { receipt } = await relay(owner, relayer.address, 1n);
    expect(receipt.status).toBe('success');
    expect(userOperationOutcome(receipt, owner.address)).toBe('reverted');
    expect(userOperationOutcome(receipt, localMinterAccount.address)).toBeUndefined();
  });

  it('refuses an operation signed by another key', async () => {
    const owner = privateKeyToAccount(generatePrivateKey());
    const impostor = privateKeyToAccount(generatePrivateKey());
    const facts = await readSponsorFacts(client, owner.address);
    await expect(
      buildSponsoredCall({
        owner: impostor,
        chainId: 137,
        facts,
        calls: [{ to: owner.address, value: 0n, data: undefined }],
        callGas: 0n,
        relayer: relayer.address,
      }),
    ).rejects.toThrow(/not the account/);
  });
});
