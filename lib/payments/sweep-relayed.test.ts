import { and, eq, isNotNull } from 'drizzle-orm';
import { parseTransaction, parseUnits, recoverTransactionAddress, type Hex, type PublicClient } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIMPLE_7702_ACCOUNT_ADDRESS } from '@/lib/chains/smart-account-contracts';
import { getDb } from '@/lib/db/client';
import { charges, outboundTransfers } from '@/lib/db/schema';
import { resetEnvCache } from '@/lib/env';
import { reconcileDueTransfers } from '@/lib/jobs/transfer-outcome-hooks';
import { expectedBalances } from '@/lib/ledger/expected-balances';
import { readDelegation } from '@/lib/smart-accounts/read-delegation';
import { broadcastTransfer } from '@/lib/transactions/broadcast-transfer';
import { inFlightOf } from '@/lib/transactions/lock-sender';
import { type TestMerchant } from '@/test/fixtures';
import {
  CHAIN,
  USDC,
  gasTank,
  merchantWallet as merchantEvmWallet,
  paidCharges,
  rpc,
  setEnv,
  startRelayedSweepWorld,
  stopRelayedSweepWorld,
  usdcBalance,
  type Paid,
} from '@/test/relayed-sweep-world';
import { sweepCharge } from './sweep-charges';

// ADR 0035 on a private Polygon node (anvil, prague): an ERC-20 sweep relayed by the gas tank through the
// deposit address's EIP-7702 smart account. The deposit address never receives POL.
let client: PublicClient;
let merchant: TestMerchant;

function smartAccountChains(value: string) {
  setEnv({ SMART_ACCOUNT_CHAINS: value });
}

beforeAll(async () => {
  ({ client, merchant } = await startRelayedSweepWorld());
});

afterAll(stopRelayedSweepWorld);

/** A charge paid in full at its deposit address, succeeded. */
async function paidCharge(amount: string): Promise<{ chargeId: string; deposit: Hex }> {
  const [{ chargeId, deposit }] = (await paidCharges([amount])) as [Paid];
  const [row] = await getDb().select().from(charges).where(eq(charges.id, chargeId));
  expect(row!.status).toBe('succeeded');
  return { chargeId, deposit };
}

/** Sweep passes and reconciler passes until nothing is owed; the deposit's native balance after each step. */
async function sweepUntilDone(chargeId: string, deposit: Hex): Promise<{ outcomes: string[]; nativeSeen: bigint[] }> {
  const outcomes: string[] = [];
  const nativeSeen: bigint[] = [];
  for (let i = 0; i < 10; i++) {
    const outcome = await sweepCharge(chargeId);
    outcomes.push(outcome);
    nativeSeen.push(await client.getBalance({ address: deposit }));
    if (outcome === 'nothing_owed') break;
    await reconcileDueTransfers({ ignoreSchedule: true });
    nativeSeen.push(await client.getBalance({ address: deposit }));
  }
  return { outcomes, nativeSeen };
}

describe('relayed ERC-20 sweeps (EIP-7702 smart accounts)', () => {
  it('sweeps without a top-up: the deposit holds no native coin throughout, the merchant gets the tokens, the tank pays the gas', async () => {
    const { chargeId, deposit } = await paidCharge('25');
    const tankBefore = await client.getBalance({ address: gasTank });
    expect(await readDelegation(client, deposit)).toBeUndefined();

    const { outcomes, nativeSeen } = await sweepUntilDone(chargeId, deposit);
    expect(outcomes.filter((o) => o === 'swept')).toHaveLength(1);
    expect(outcomes.at(-1)).toBe('nothing_owed');
    expect(nativeSeen.every((balance) => balance === 0n)).toBe(true);

    const merchantWallet = await merchantEvmWallet();
    expect(await usdcBalance(merchantWallet)).toBe(parseUnits('25', USDC.decimals));
    expect(await usdcBalance(deposit)).toBe(0n);
    // Delegated on first use, by the authorization the relayed transaction carried.
    expect(await readDelegation(client, deposit)).toBe(SIMPLE_7702_ACCOUNT_ADDRESS);

    const transfers = await getDb().select().from(outboundTransfers).where(eq(outboundTransfers.chargeId, chargeId));
    expect(transfers.map((t) => t.purpose)).toEqual(['sweep']); // no gas_topup
    const [sweep] = transfers;
    expect(sweep).toMatchObject({
      fromAddress: deposit,
      relayerAddress: gasTank,
      toAddress: merchantWallet,
      status: 'confirmed',
      amountBaseUnits: parseUnits('25', USDC.decimals),
    });
    const receipt = await client.getTransactionReceipt({ hash: sweep!.txHash as Hex });
    expect(receipt.from.toLowerCase()).toBe(gasTank.toLowerCase());
    expect(receipt.type).toBe('eip7702');
    // The tank paid exactly the relayed transaction's gas, recorded on the transfer.
    expect(sweep!.gasFeeBaseUnits).toBe(receipt.gasUsed * receipt.effectiveGasPrice);
    expect(tankBefore - (await client.getBalance({ address: gasTank }))).toBe(sweep!.gasFeeBaseUnits);
    // The books agree: the fee is the tank's, the deposit address is expected to hold no native coin.
    const expected = await expectedBalances(getDb(), { chain: CHAIN, atBlock: await client.getBlockNumber({ cacheTime: 0 }) });
    const native = (address: string) => expected.find((e) => e.address === address.toLowerCase() && /^0x0{40}$/.test(e.token));
    expect(native(deposit)?.expected ?? 0n).toBe(0n);
    expect(native(gasTank)?.kinds).toContain('gas_fee');
  });

  it('does not sweep twice: a pass while it is in flight records nothing, a second broadcast of the same bytes moves nothing', async () => {
    const { chargeId, deposit } = await paidCharge('7');
    const merchantWallet = await merchantEvmWallet();
    const before = await usdcBalance(merchantWallet);
    expect(await sweepCharge(chargeId)).toBe('swept');
    // The sweep is recorded and sent, not yet reconciled: another pass (a retry, another worker) finds it in flight.
    expect(await sweepCharge(chargeId)).toBe('in_flight');
    const [sweep] = await getDb()
      .select()
      .from(outboundTransfers)
      .where(and(eq(outboundTransfers.chargeId, chargeId), eq(outboundTransfers.purpose, 'sweep')));
    // In flight, the engine's books split it: the deposit's tokens are committed, the gas and the nonce are the tank's.
    const depositFlight = await inFlightOf(getDb(), CHAIN, deposit);
    expect(depositFlight).toMatchObject({ maxNonce: -1, nativeOut: 0n, relayedOut: 1 });
    expect(depositFlight.valueOut.get(USDC.address.toLowerCase())).toBe(parseUnits('7', USDC.decimals));
    const tankFlight = await inFlightOf(getDb(), CHAIN, gasTank);
    expect(tankFlight.maxNonce).toBeGreaterThanOrEqual(sweep!.nonce);
    expect(tankFlight.nativeOut).toBeGreaterThanOrEqual(sweep!.gasLimit! * sweep!.maxFeePerGas!);
    expect(tankFlight.valueOut.get(USDC.address.toLowerCase())).toBeUndefined();
    await client.waitForTransactionReceipt({ hash: sweep!.txHash as Hex });
    // The same signed transaction again (a crash between send and record): its nonce is used, nothing moves.
    await getDb().update(outboundTransfers).set({ status: 'signed' }).where(eq(outboundTransfers.id, sweep!.id));
    await broadcastTransfer(sweep!.id);
    const { outcomes, nativeSeen } = await sweepUntilDone(chargeId, deposit);
    expect(outcomes).not.toContain('swept');
    expect(nativeSeen.every((balance) => balance === 0n)).toBe(true);
    expect(await usdcBalance(merchantWallet)).toBe(before + parseUnits('7', USDC.decimals));
    const rows = await getDb().select().from(outboundTransfers).where(eq(outboundTransfers.chargeId, chargeId));
    expect(rows).toHaveLength(1);
    expect(rows[0]!.status).toBe('confirmed');
  });

  it('stuck under the base fee: the tank re-signs it at its own nonce with the authorization again, and it sweeps once', async () => {
    const { chargeId, deposit } = await paidCharge('4');
    const merchantWallet = await merchantEvmWallet();
    const before = await usdcBalance(merchantWallet);
    await rpc('evm_setAutomine', [false]);
    try {
      expect(await sweepCharge(chargeId)).toBe('swept');
      const [sweep] = await getDb()
        .select()
        .from(outboundTransfers)
        .where(and(eq(outboundTransfers.chargeId, chargeId), eq(outboundTransfers.purpose, 'sweep')));
      expect(sweep!.status).toBe('broadcast');
      const high = sweep!.maxFeePerGas! * 4n;
      await rpc('anvil_setNextBlockBaseFeePerGas', [`0x${high.toString(16)}`]);
      await rpc('evm_mine', []);
      expect(await client.getTransactionReceipt({ hash: sweep!.txHash as Hex }).catch(() => null)).toBeNull();

      await new Promise((resolve) => setTimeout(resolve, 1_100));
      await reconcileDueTransfers({ ignoreSchedule: true });
      const [bumped] = await getDb().select().from(outboundTransfers).where(eq(outboundTransfers.id, sweep!.id));
      expect(bumped!.feeBumps).toBe(1);
      expect(bumped!.nonce).toBe(sweep!.nonce); // the tank's nonce, not the deposit's
      const replacement = parseTransaction(bumped!.rawTransaction as Hex);
      expect(replacement.type).toBe('eip7702');
      expect(replacement.authorizationList).toEqual(parseTransaction(sweep!.rawTransaction as Hex).authorizationList);
      expect(await recoverTransactionAddress({ serializedTransaction: bumped!.rawTransaction as never })).toBe(gasTank);

      await rpc('anvil_setNextBlockBaseFeePerGas', [`0x${high.toString(16)}`]);
      await rpc('evm_mine', []);
    } finally {
      await rpc('evm_setAutomine', [true]);
    }
    const { outcomes, nativeSeen } = await sweepUntilDone(chargeId, deposit);
    expect(outcomes).not.toContain('swept');
    expect(nativeSeen.every((balance) => balance === 0n)).toBe(true);
    expect(await usdcBalance(merchantWallet)).toBe(before + parseUnits('4', USDC.decimals));
    const rows = await getDb().select().from(outboundTransfers).where(eq(outboundTransfers.chargeId, chargeId));
    expect(rows.map((r) => [r.purpose, r.status])).toEqual([['sweep', 'confirmed']]);
  });

  it("counts relayed sweeps against the merchant's daily cap of sponsored transactions", async () => {
    const { chargeId, deposit } = await paidCharge('2');
    const sponsored = await getDb()
      .select()
      .from(outboundTransfers)
      .where(and(eq(outboundTransfers.sponsorMerchantId, merchant.id), isNotNull(outboundTransfers.relayerAddress)));
    process.env.GAS_TANK_DAILY_TOPUPS_PER_MERCHANT = String(sponsored.filter((t) => t.status !== 'failed').length);
    resetEnvCache();
    try {
      // The tank refuses: an outage for the sweeper (retried later, not counted against the sweep).
      expect(await sweepCharge(chargeId)).toBe('waiting_for_gas');
      const rows = await getDb().select().from(outboundTransfers).where(eq(outboundTransfers.chargeId, chargeId));
      expect(rows).toEqual([]);
    } finally {
      delete process.env.GAS_TANK_DAILY_TOPUPS_PER_MERCHANT;
      resetEnvCache();
    }
    const { outcomes } = await sweepUntilDone(chargeId, deposit);
    expect(outcomes).toContain('swept');
  });

  it('keeps the top-up path on a chain not switched on (SMART_ACCOUNT_CHAINS)', async () => {
    smartAccountChains('');
    try {
      const { chargeId, deposit } = await paidCharge('3');
      await sweepUntilDone(chargeId, deposit);
      const transfers = await getDb().select().from(outboundTransfers).where(eq(outboundTransfers.chargeId, chargeId));
      expect(transfers.map((t) => t.purpose).sort()).toEqual(['gas_topup', 'sweep']);
      expect(transfers.find((t) => t.purpose === 'sweep')).toMatchObject({ status: 'confirmed', relayerAddress: null });
      expect(await readDelegation(client, deposit)).toBeUndefined();
    } finally {
      smartAccountChains(CHAIN);
    }
  });
});
