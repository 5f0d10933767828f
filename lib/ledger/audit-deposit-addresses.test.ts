/**
 * The slow pass over every deposit address, on a private Polygon node and database: a payment to a deposit
 * address after its watch window (the watcher no longer sees it) is recorded as late, reported with
 * `charge.late_payment` and refundable; a token the charge is not in is recorded as a stray deposit, enters
 * the ledger (reconciliation then agrees), and is recorded once; then two operators return it to a named
 * address (recover-deposit: the requester cannot approve, the transfer gate refuses it unapproved).
 */
import { and, eq } from 'drizzle-orm';
import { createPublicClient, erc20Abi, http, parseUnits, type Address, type PublicClient } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expireDueCharges } from '@/lib/charges/expire-charges';
import { CHAINS } from '@/lib/chains/registry';
import { getDb } from '@/lib/db/client';
import { auditLog, chargeEvents, charges, depositAddresses, outboundTransfers, payments, strayDeposits } from '@/lib/db/schema';
import { reconcileDueTransfers } from '@/lib/jobs/transfer-outcome-hooks';
import { depositAccount } from '@/lib/keyring/deposit-addresses';
import { gasTankAccountFromSeed } from '@/lib/transactions/gas-tank-key';
import { prepareTransfer } from '@/lib/transactions/prepare-transfer';
import { recordTransfer } from '@/lib/transactions/record-transfer';
import { sendTokenFrom } from '@/test/anvil';
import { TEST_SECRETS } from '@/test/test-secrets';
import { resetEnvCache } from '@/lib/env';
import { pollChain } from '@/lib/payments/poll-chain';
import { createRefund } from '@/lib/refunds/create-refund';
import { listStrandedFunds } from '@/lib/refunds/stranded-funds';
import { pollIncomingTransfers } from '@/lib/wallets/poll-incoming-transfers';
import { fundLocalWallet, provisionLocalChain, startLocalChain, type LocalChainNode } from '@/scripts/stack/local-chain';
import { createTestCharge, newMerchant, usdcCharge, type TestMerchant } from '@/test/fixtures';
import { switchToPrivateDatabase } from '@/test/private-database';
import { auditDepositAddresses } from './audit-deposit-addresses';
import { reconcileChain } from './reconcile-chains';
import { approveDepositRecovery, listStrayHoldings, requestDepositRecovery } from './recover-deposit';

const CHAIN = 'POLYGON' as const;
const USDC = CHAINS[CHAIN].tokens.find((t) => t.symbol === 'USDC')!;
const USDT = CHAINS[CHAIN].tokens.find((t) => t.symbol === 'USDT')!;
let node: LocalChainNode;
let client: PublicClient;
let merchant: TestMerchant;
const payer = privateKeyToAccount(generatePrivateKey());

beforeAll(async () => {
  await switchToPrivateDatabase('deposit_audit');
  node = await startLocalChain({ chain: CHAIN });
  await provisionLocalChain({ chain: CHAIN, url: node.url });
  process.env.RPC_URL_POLYGON = node.url;
  process.env.LOCAL_CHAINS = 'POLYGON,POLYGON_AMOY';
  resetEnvCache();
  client = createPublicClient({ transport: http(node.url) });
  await fundLocalWallet({ chain: CHAIN, url: node.url, address: payer.address });
  merchant = await newMerchant({ verified: true });
});

afterAll(async () => {
  await node.stop();
});

const send = async (token: typeof USDC, to: Address, amount: string): Promise<void> => {
  await sendTokenFrom(node, payer, token, to, amount);
};

/** The background jobs: the charge watcher and the wallet indexer, up to the head. */
async function scanners(): Promise<void> {
  for (let i = 0; i < 3; i++) {
    await pollChain(CHAIN);
    await pollIncomingTransfers(CHAIN);
  }
}

const audit = async () => (await auditDepositAddresses({ chains: [CHAIN] }))[0]!;
const paymentsOf = (chargeId: string) => getDb().select().from(payments).where(eq(payments.chargeId, chargeId));

describe('the slow pass over every deposit address', () => {
  it('finds a payment made after the watch window: recorded late, reported, refundable; found once', async () => {
    const { chargeId, deposit } = await createTestCharge({ apiKey: merchant.liveKey, body: usdcCharge({ amount: '5', items: undefined }) });
    const address = deposit.address as Address;
    // The charge expired a day ago and its watch window has ended.
    await getDb()
      .update(charges)
      .set({ expiresAt: new Date(Date.now() - 25 * 3_600_000) })
      .where(eq(charges.id, chargeId));
    await getDb()
      .update(depositAddresses)
      .set({ watchUntil: new Date(Date.now() - 3_600_000) })
      .where(eq(depositAddresses.chargeId, chargeId));
    await scanners();
    await expireDueCharges();

    // The payer re-uses the old address (an address book, an exchange allow-list).
    await send(USDC, address, '5');
    await scanners();
    expect(await paymentsOf(chargeId)).toEqual([]); // the watcher no longer looks

    const first = await audit();
    expect(first.error).toBeUndefined();
    expect(first.latePayments).toBe(1);
    expect(await paymentsOf(chargeId)).toEqual([
      expect.objectContaining({
        isLate: true,
        status: 'confirmed',
        amountBaseUnits: parseUnits('5', 6),
        tokenAddress: USDC.address.toLowerCase(),
      }),
    ]);
    const events = await getDb()
      .select()
      .from(chargeEvents)
      .where(and(eq(chargeEvents.chargeId, chargeId), eq(chargeEvents.type, 'charge.late_payment')));
    expect(events).toHaveLength(1);
    expect(await listStrandedFunds({ merchantId: merchant.id, mode: 'live' })).toEqual([
      expect.objectContaining({ chargeId, amount: '5', chargeStatus: 'expired' }),
    ]);

    // Nothing found twice: the ledger now explains the balance.
    await getDb().update(depositAddresses).set({ lastAuditedAt: null }).where(eq(depositAddresses.chargeId, chargeId));
    expect((await audit()).latePayments).toBe(0);
    expect(await paymentsOf(chargeId)).toHaveLength(1);
    expect(ours(await reconcileChain(CHAIN), address)).toEqual([]);

    // Refundable: the sender of a balance-found payment is not known, so the refund is a claim link.
    const { refund } = await createRefund({
      ctx: { merchantId: merchant.id, mode: 'live', actor: 'api_key:key_audit_test' },
      chargeId,
      body: {},
    });
    expect(refund).toMatchObject({ amount: '5', claimUrl: expect.any(String) });
  });

  it('records a token the charge is not in as a stray deposit, in the ledger from then on, once', async () => {
    const { chargeId, deposit } = await createTestCharge({ apiKey: merchant.liveKey, body: usdcCharge({ amount: '7', items: undefined }) });
    const address = deposit.address as Address;
    await send(USDT, address, '3'); // USDT to a USDC charge, while it is still open
    await scanners();
    expect(ours(await reconcileChain(CHAIN), address)).toEqual([
      expect.objectContaining({ symbol: 'USDT', difference: parseUnits('3', 6) }),
    ]);

    await getDb().update(depositAddresses).set({ lastAuditedAt: null }).where(eq(depositAddresses.chargeId, chargeId));
    expect((await audit()).strayDeposits).toBeGreaterThanOrEqual(1);
    const strays = () => getDb().select().from(strayDeposits).where(eq(strayDeposits.chargeId, chargeId));
    expect(await strays()).toEqual([
      expect.objectContaining({ tokenAddress: USDT.address.toLowerCase(), amountBaseUnits: parseUnits('3', 6), address }),
    ]);
    expect(await paymentsOf(chargeId)).toEqual([]); // never a payment of the charge
    expect(ours(await reconcileChain(CHAIN), address)).toEqual([]);

    await getDb().update(depositAddresses).set({ lastAuditedAt: null }).where(eq(depositAddresses.chargeId, chargeId));
    await audit();
    expect(await strays()).toHaveLength(1);

    // Returned by two operators to the address support names.
    const named = privateKeyToAccount(generatePrivateKey()).address;
    await fundLocalWallet({ chain: CHAIN, url: node.url, address: gasTankAccountFromSeed(TEST_SECRETS.DEPOSIT_HD_SEED).address });
    const request = await requestDepositRecovery({
      chain: CHAIN,
      deposit: address,
      token: USDT.address,
      amount: 'all',
      to: named,
      operator: 'alice@ops.example',
      reason: 'USDT sent to a USDC charge; the payer asked for it back',
    });
    expect(request).toMatchObject({ amount: '3', symbol: 'USDT', status: 'requested', chargeId });
    const holding = async () => (await listStrayHoldings()).find((h) => h.address === address);
    expect(await holding()).toMatchObject({ stray: parseUnits('3', 6), recovered: 0n, openRequests: [request.id] });
    // The charge's own token is never recovered this way (a refund returns it; the sweep owes it to the merchant).
    await expect(
      requestDepositRecovery({
        chain: CHAIN,
        deposit: address,
        token: USDC.address,
        amount: '1',
        to: named,
        operator: 'alice@ops.example',
        reason: 'x',
      }),
    ).rejects.toMatchObject({ code: 'invalid_request', param: 'token' });
    await expect(approveDepositRecovery({ recoveryId: request.id, operator: ' Alice@ops.example' })).rejects.toMatchObject({
      code: 'forbidden',
    });
    // The engine's gate itself refuses a recovery nobody else approved, whoever calls it.
    const prepared = await prepareTransfer({
      chain: CHAIN,
      from: address,
      spend: { token: USDT, amount: parseUnits('3', 6), recipient: named },
      gasSponsored: true,
    });
    const [depositRow] = await getDb().select().from(depositAddresses).where(eq(depositAddresses.chargeId, chargeId));
    await expect(
      getDb().transaction((tx) =>
        recordTransfer(tx, {
          prepared,
          signer: depositAccount(depositRow!.derivationIndex),
          purpose: 'recovery',
          chargeId,
          authorization: {
            authority: { kind: 'two_operators', recoveryId: request.id },
            destination: { class: 'recovery_address', recoveryId: request.id },
          },
          gasSponsor: { merchantId: merchant.id },
        }),
      ),
    ).rejects.toMatchObject({ code: 'transfer_not_authorized' });

    const approved = await approveDepositRecovery({ recoveryId: request.id, operator: 'bob@ops.example' });
    expect(approved).toMatchObject({ status: 'sent', approvedBy: 'bob@ops.example', transferId: expect.any(String) });
    for (let i = 0; i < 6; i++) {
      await reconcileDueTransfers({ ignoreSchedule: true });
      await scanners();
    }
    const [transfer] = await getDb().select().from(outboundTransfers).where(eq(outboundTransfers.id, approved.transferId!));
    expect(transfer).toMatchObject({ purpose: 'recovery', status: 'confirmed', toAddress: named });
    expect(await client.readContract({ address: USDT.address as Address, abi: erc20Abi, functionName: 'balanceOf', args: [named] })).toBe(
      parseUnits('3', 6),
    );
    const audits = await getDb().select().from(auditLog).where(eq(auditLog.targetId, request.id));
    expect(audits.map((a) => [a.action, a.data.operator]).sort()).toEqual([
      ['deposit.recovery_approved', 'bob@ops.example'],
      ['deposit.recovery_requested', 'alice@ops.example'],
    ]);
    expect(await holding()).toMatchObject({ stray: parseUnits('3', 6), recovered: parseUnits('3', 6), openRequests: [] });
    // In the books: the stray entry in, the recovery (and its fee, and the tank's top-up) out.
    expect(ours(await reconcileChain(CHAIN), address)).toEqual([]);
    await expect(approveDepositRecovery({ recoveryId: request.id, operator: 'carol@ops.example' })).rejects.toMatchObject({
      code: 'invalid_request',
    });
  });
});

const ours = (result: Awaited<ReturnType<typeof reconcileChain>>, address: string) =>
  result.discrepancies.filter((d) => d.address.toLowerCase() === address.toLowerCase());
