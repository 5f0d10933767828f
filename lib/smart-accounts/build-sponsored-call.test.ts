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

type Owner = ReturnType<typeof privateKeyToAccount>;
const transferCall = (to: Address, amount: bigint) => ({
  to: USDC.address as Address,
  value: 0n,
  data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, amount] }),
});

/** The relayer sends one handleOps moving `amount` from each owner to `to`. */
async function relayAll(owners: Owner[], to: Address, amount: bigint) {
  const facts = await Promise.all(owners.map((owner) => readSponsorFacts(client, owner.address)));
  const call = await buildSponsoredCall({
    chainId: CHAINS.POLYGON.evmChainId!,
    operations: owners.map((owner, i) => ({ owner, facts: facts[i]!, calls: [transferCall(to, amount)], callGas: 60_000n })),
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

async function relay(owner: Owner, to: Address, amount: bigint) {
  const { call, facts, receipt } = await relayAll([owner], to, amount);
  return { call, facts: facts[0]!, receipt };
}

async function fundedWithoutCoin(): Promise<Owner> {
  const owner = privateKeyToAccount(generatePrivateKey());
  await fundLocalWallet({ chain: 'POLYGON', url: node.url, address: owner.address });
  await client.request({ method: 'anvil_setBalance' as never, params: [owner.address, '0x0'] as never });
  return owner;
}

describe('sponsored calls through EIP-7702 and the EntryPoint', () => {
  it('reads a delegation only from the exact 0xef0100 ‖ address code', () => {
    expect(delegationOf(`0xef0100${SIMPLE_7702_ACCOUNT_ADDRESS.slice(2)}`)).toBe(SIMPLE_7702_ACCOUNT_ADDRESS);
    expect(delegationOf('0x')).toBeUndefined();
    expect(delegationOf(`0xef0100${SIMPLE_7702_ACCOUNT_ADDRESS.slice(2)}00`)).toBeUndefined();
    expect(delegationOf(`0x600100${SIMPLE_7702_ACCOUNT_ADDRESS.slice(2)}`)).toBeUndefined();
  });

  it('moves an ERC-20 out of an EOA that holds no native coin, delegating on first use, the relayer paying', async () => {
    const owner = await fundedWithoutCoin();
    const payee = privateKeyToAccount(generatePrivateKey()).address;
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

  it('refuses an operation signed by another key, and two operations of one account in one call', async () => {
    const owner = privateKeyToAccount(generatePrivateKey());
    const impostor = privateKeyToAccount(generatePrivateKey());
    const facts = await readSponsorFacts(client, owner.address);
    const operation = { owner, facts, calls: [transferCall(owner.address, 0n)], callGas: 0n };
    await expect(
      buildSponsoredCall({ chainId: 137, operations: [{ ...operation, owner: impostor }], relayer: relayer.address }),
    ).rejects.toThrow(/not the account/);
    await expect(buildSponsoredCall({ chainId: 137, operations: [operation, operation], relayer: relayer.address })).rejects.toThrow(
      /one operation per account/,
    );
  });

  it("moves several accounts' tokens in one handleOps (a batch), delegated or not", async () => {
    // One after another: the minter's nonces.
    const first = await fundedWithoutCoin();
    const second = await fundedWithoutCoin();
    const third = await fundedWithoutCoin();
    await relay(first, relayer.address, 1n); // delegated before the batch
    const payee = privateKeyToAccount(generatePrivateKey()).address;
    const { call, receipt } = await relayAll([first, second, third], payee, 2n * 10n ** 6n);
    expect(receipt.status).toBe('success');
    expect(call.authorizationList).toHaveLength(2);
    expect(call.userOperationHashes).toHaveLength(3);
    for (const owner of [first, second, third]) {
      expect(userOperationOutcome(receipt, owner.address)).toBe('success');
      expect(await client.getBalance({ address: owner.address })).toBe(0n);
    }
    expect(await balanceOf(payee)).toBe(6n * 10n ** 6n);
  });
});
