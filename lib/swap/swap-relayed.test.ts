import { eq, inArray } from 'drizzle-orm';
import { type Address, type Hex, type PublicClient } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb } from '@/lib/db/client';
import { outboundTransfers, swapExecutions } from '@/lib/db/schema';
import { resetEnvCache } from '@/lib/env';
import { reconcileDueTransfers } from '@/lib/jobs/transfer-outcome-hooks';
import { entryPointNonceOf } from '@/lib/smart-accounts/entry-point-nonce-of';
import { gasTankAccountFromSeed } from '@/lib/transactions/gas-tank-key';
import type { LocalChainNode } from '@/scripts/stack/local-chain';
import { newMerchant, type TestMerchant } from '@/test/fixtures';
import { BSC_USDC, PZP, balanceOf, createPzpCharge, fundedConsumer, heldFundsSwapInput, startSwapTestChain } from '@/test/swap';
import { TEST_SECRETS } from '@/test/test-secrets';
import { quoteHeldFundsSwap, swapHeldFunds } from './swap-held-funds';

// A swap of held funds on BSC with smart accounts on (ADR 0035): the router's approve and the swap are both the
// wallet's own calls, relayed by the gas tank; the swap takes the next EntryPoint nonce and waits for the approve.
const PIN = '583920';
const gasTank = gasTankAccountFromSeed(TEST_SECRETS.DEPOSIT_HD_SEED).address;
let node: LocalChainNode;
let client: PublicClient;
let merchant: TestMerchant;

beforeAll(async () => {
  ({ node, client } = await startSwapTestChain());
  process.env.SMART_ACCOUNT_CHAINS = 'BSC';
  resetEnvCache();
  merchant = await newMerchant({ verified: true });
});

afterAll(async () => {
  delete process.env.SMART_ACCOUNT_CHAINS;
  resetEnvCache();
  await node.stop();
});

describe('relayed swap of held funds', () => {
  it('approve and swap are relayed in EntryPoint order, the wallet holds no BNB throughout, the PZP arrives', async () => {
    const consumer = await fundedConsumer(node.url, PIN, { noGas: true });
    const toAddress: Address = privateKeyToAccount(generatePrivateKey()).address;
    const { chargeId, deposit } = await createPzpCharge(merchant, '250', toAddress);
    const quote = await quoteHeldFundsSwap({ userId: consumer.userId, chargeId, country: 'DE', complianceCountry: 'DE' });
    const usdcBefore = await balanceOf(client, BSC_USDC, consumer.wallet);
    const { swapExecutionId } = await swapHeldFunds(heldFundsSwapInput(quote, { userId: consumer.userId, chargeId, pin: PIN }));
    const rows = await getDb()
      .select()
      .from(outboundTransfers)
      .where(inArray(outboundTransfers.purpose, ['swap_approve', 'swap', 'gas_topup']));
    const own = rows.filter((row) => row.fromAddress === consumer.wallet || row.toAddress === consumer.wallet);
    expect(own.map((row) => row.purpose).sort()).toEqual(['swap', 'swap_approve']);
    const approve = own.find((row) => row.purpose === 'swap_approve')!;
    const swap = own.find((row) => row.purpose === 'swap')!;
    expect(approve.relayerAddress).toBe(gasTank);
    expect(swap.relayerAddress).toBe(gasTank);
    expect(swap.dependsOnTransferIds).toContain(approve.id);
    expect(entryPointNonceOf(swap.callData, consumer.wallet)).toBe(entryPointNonceOf(approve.callData, consumer.wallet)! + 1n);

    for (let i = 0; i < 20; i++) {
      await client.request({ method: 'anvil_mine' as never, params: ['0x4'] as never });
      await reconcileDueTransfers({ ignoreSchedule: true });
      const [execution] = await getDb().select().from(swapExecutions).where(eq(swapExecutions.id, swapExecutionId));
      if (execution!.status === 'confirmed') break;
    }
    const [execution] = await getDb().select().from(swapExecutions).where(eq(swapExecutions.id, swapExecutionId));
    expect(execution!.status).toBe('confirmed');
    expect(await balanceOf(client, PZP, deposit as Hex)).toBeGreaterThanOrEqual(250n * 10n ** 18n);
    expect(await balanceOf(client, BSC_USDC, consumer.wallet)).toBeLessThan(usdcBefore);
    expect(await client.getBalance({ address: consumer.wallet })).toBe(0n);
  });
});
