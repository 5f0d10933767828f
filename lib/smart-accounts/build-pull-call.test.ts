import { decodeFunctionData, encodeAbiParameters, erc20Abi, getAddress, pad, parseAbi, toEventSelector, type Hex, type Log } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { recoverAuthorizationAddress } from 'viem/utils';
import { describe, expect, it } from 'vitest';
import { SIMPLE_7702_ACCOUNT_ADDRESS } from '@/lib/chains/smart-account-contracts';
import { buildPullCall, isPullCall, pullMoved } from './build-pull-call';

const tank = privateKeyToAccount(generatePrivateKey());
const token = getAddress('0x3c499c542cef5e3811e1192ce70d8cc03d5c3359');
const deposit = privateKeyToAccount(generatePrivateKey()).address;
const payee = privateKeyToAccount(generatePrivateKey()).address;
const TRANSFER = toEventSelector('event Transfer(address indexed from, address indexed to, uint256 value)');

function transferLog(from: Hex, to: Hex, value: bigint, address: Hex = token): Log<bigint, number, false> {
  return {
    address,
    topics: [TRANSFER, pad(from), pad(to)],
    data: encodeAbiParameters([{ type: 'uint256' }], [value]),
    blockHash: pad('0x1'),
    blockNumber: 1n,
    logIndex: 0,
    transactionHash: pad('0x2'),
    transactionIndex: 0,
    removed: false,
  };
}

const row = { tokenAddress: token, fromAddress: deposit, toAddress: payee, amountBaseUnits: 5n };

describe('pull calls (ADR 0035, "Pull sweeps")', () => {
  it("is the tank's executeBatch on itself, one transferFrom per pull; undelegated, it carries the tank's own authorization at nonce + 1", async () => {
    const call = await buildPullCall({
      chainId: 137,
      tank,
      pulls: [
        { token, from: deposit, to: payee, amount: 5n, gas: 50_000n },
        { token, from: payee, to: deposit, amount: 7n, gas: 50_000n },
      ],
      delegated: false,
      nonce: 9,
    });
    expect(call.to).toBe(tank.address);
    const { args } = decodeFunctionData({
      abi: parseAbi(['struct Call { address target; uint256 value; bytes data; }', 'function executeBatch(Call[] calls)']),
      data: call.data,
    });
    const inner = args[0].map((c) => decodeFunctionData({ abi: erc20Abi, data: c.data }));
    expect(inner.map((c) => c.functionName)).toEqual(['transferFrom', 'transferFrom']);
    expect(inner[0]!.args).toEqual([deposit, payee, 5n]);
    expect(call.authorizationList).toHaveLength(1);
    expect(call.authorizationList[0]!.nonce).toBe(10);
    expect(getAddress(call.authorizationList[0]!.address)).toBe(SIMPLE_7702_ACCOUNT_ADDRESS);
    expect(await recoverAuthorizationAddress({ authorization: call.authorizationList[0]! })).toBe(tank.address);
    const delegated = await buildPullCall({
      chainId: 137,
      tank,
      pulls: [{ token, from: deposit, to: payee, amount: 5n, gas: 50_000n }],
      delegated: true,
      nonce: 9,
    });
    expect(delegated.authorizationList).toEqual([]);
    expect(delegated.gas).toBeLessThan(call.gas);
  });

  it("confirms a row only on its token's Transfer from the deposit to the payee of the amount, in a receipt that succeeded", () => {
    expect(pullMoved({ status: 'success', logs: [transferLog(deposit, payee, 5n)] }, row)).toBe(true);
    expect(pullMoved({ status: 'reverted', logs: [transferLog(deposit, payee, 5n)] }, row)).toBe(false);
    expect(pullMoved({ status: 'success', logs: [] }, row)).toBe(false); // a token that returned false
    expect(pullMoved({ status: 'success', logs: [transferLog(deposit, payee, 4n)] }, row)).toBe(false);
    expect(pullMoved({ status: 'success', logs: [transferLog(deposit, deposit, 5n)] }, row)).toBe(false);
    expect(pullMoved({ status: 'success', logs: [transferLog(deposit, payee, 5n, payee)] }, row)).toBe(false);
  });

  it('tells a pull (the relayer calling itself) from a handleOps and from an unrelayed transfer', () => {
    expect(isPullCall({ callTo: tank.address.toLowerCase(), relayerAddress: tank.address })).toBe(true);
    expect(isPullCall({ callTo: token, relayerAddress: tank.address })).toBe(false);
    expect(isPullCall({ callTo: tank.address, relayerAddress: null })).toBe(false);
  });
});
