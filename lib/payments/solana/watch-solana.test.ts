/**
 * The Solana watcher end to end through the database: charges created by the API, paid by real
 * transactions executed in LiteSVM, found through @solana/kit's RPC client whose transport serves them
 * (test/litesvm-view.ts says what a live node would add).
 */
import { eq } from 'drizzle-orm';
import { LiteSVM } from 'litesvm';
import { createSolanaRpcFromTransport, type Address, type KeyPairSigner } from '@solana/kit';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SOLANA_NATIVE_MINT } from '@/lib/chains/registry';
import { getDb } from '@/lib/db/client';
import { charges, depositAddresses, payments } from '@/lib/db/schema';
import { callRoute, newMerchant, serveChainsWithoutNode, type TestMerchant } from '@/test/fixtures';
import { POST as createChargeRoute } from '@/app/api/createCharge/route';
import { loadCheckoutStatus } from '../checkout-status';
import { parseSolanaPayTransferRequest } from './solana-pay-uri';
import type { ReferencedTransfersRpc } from './find-transfers';
import { LiteSvmLedger, expectSuccess, fundedWallet, solPayment } from '@/test/litesvm-view';
import { pollSolana } from './watch-solana';

let merchant: TestMerchant;
let ledger: LiteSvmLedger;
let rpc: ReferencedTransfersRpc;
let payer: KeyPairSigner;

beforeAll(async () => {
  serveChainsWithoutNode('SOLANA');
  merchant = await newMerchant({ verified: true });
});

beforeEach(async () => {
  ledger = new LiteSvmLedger(new LiteSVM());
  rpc = createSolanaRpcFromTransport(ledger.transport);
  payer = await fundedWallet(ledger.svm, 10n);
});

async function solCharge(amount: string): Promise<{ chargeId: string; address: Address; reference: Address }> {
  const res = await callRoute(createChargeRoute, {
    apiKey: merchant.liveKey!,
    body: { chargeData: { symbol: 'SOL', chain: 'SOLANA', tokenAddress: SOLANA_NATIVE_MINT, amount } },
  });
  expect(res.status).toBe(200);
  const chargeId = res.json.data.chargeId as string;
  const [deposit] = await getDb().select().from(depositAddresses).where(eq(depositAddresses.chargeId, chargeId));
  return { chargeId, address: deposit!.address as Address, reference: deposit!.reference as Address };
}

const statusOf = async (chargeId: string) => (await getDb().select().from(charges).where(eq(charges.id, chargeId)))[0]!.status;

describe('Solana Pay charges', () => {
  it('get their own deposit address and reference key, offered as a Solana Pay transfer request', async () => {
    const { chargeId, address, reference } = await solCharge('0.25');
    expect(reference).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
    const checkout = await loadCheckoutStatus(chargeId);
    const parsed = parseSolanaPayTransferRequest(checkout!.deposit!.uri, { decimals: 9 });
    expect(parsed).toMatchObject({ ok: true, request: { recipient: address, amount: '0.25', references: [reference] } });
    expect(checkout!.deposit!.address).toBe(address);
  });

  it('a referenced payment is pending at confirmed, succeeds when finalized, and is counted once however often it is seen', async () => {
    const { chargeId, address, reference } = await solCharge('1.5');
    const sent = expectSuccess(
      ledger.send(await solPayment(ledger.svm, { payer, recipient: address, lamports: 1_500_000_000n, references: [reference] })),
    );
    await pollSolana('SOLANA', { rpc });
    expect(await statusOf(chargeId)).toBe('processing');
    ledger.finalizeThrough();
    await pollSolana('SOLANA', { rpc });
    await pollSolana('SOLANA', { rpc });
    expect(await statusOf(chargeId)).toBe('succeeded');
    const rows = await getDb().select().from(payments).where(eq(payments.chargeId, chargeId));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      txHash: sent.signature,
      status: 'confirmed',
      amountBaseUnits: 1_500_000_000n,
      fromAddress: payer.address,
    });
  });

  it('underpaid shows the amount still due; a second referenced payment completes it; other transfers are ignored', async () => {
    const { chargeId, address, reference } = await solCharge('2');
    expectSuccess(
      ledger.send(await solPayment(ledger.svm, { payer, recipient: address, lamports: 500_000_000n, references: [reference] })),
    );
    // Same recipient without the reference: not this charge's payment by the Solana Pay rules.
    expectSuccess(ledger.send(await solPayment(ledger.svm, { payer, recipient: address, lamports: 5_000_000_000n, references: [] })));
    ledger.finalizeThrough();
    await pollSolana('SOLANA', { rpc });
    expect(await statusOf(chargeId)).toBe('processing');
    expect((await loadCheckoutStatus(chargeId))!.due).toBe('1.5');
    expectSuccess(
      ledger.send(await solPayment(ledger.svm, { payer, recipient: address, lamports: 1_500_000_000n, references: [reference] })),
    );
    ledger.finalizeThrough();
    await pollSolana('SOLANA', { rpc });
    expect(await statusOf(chargeId)).toBe('succeeded');
  });
});
