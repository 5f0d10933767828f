/**
 * findReferencedTransfers through a real @solana/kit RPC (request/response transformers included)
 * whose transport serves transactions really executed in LiteSVM. What the stand-in node does not
 * reproduce (a live node's indexing and commitment behaviour) is listed in test/litesvm-view.ts.
 */
import { LiteSVM } from 'litesvm';
import {
  createSolanaRpc,
  createSolanaRpcFromTransport,
  generateKeyPairSigner,
  lamports,
  type Address,
  type KeyPairSigner,
} from '@solana/kit';
import { beforeEach, describe, expect, it } from 'vitest';
import { newReferenceKey } from '@/lib/keyring/solana-deposit-keys';
import { findReferencedTransfers, type ReferencedTransfersRpc } from './find-transfers';
import { LiteSvmLedger, createMint, expectSuccess, fundedWallet, mintTokens, solPayment, tokenPayment } from '@/test/litesvm-view';

const SOL = 1_000_000_000n;

let ledger: LiteSvmLedger;
let rpc: ReferencedTransfersRpc;
let payer: KeyPairSigner;
let recipient: Address;
let reference: Address;

beforeEach(async () => {
  ledger = new LiteSvmLedger(new LiteSVM());
  rpc = createSolanaRpcFromTransport(ledger.transport);
  payer = await fundedWallet(ledger.svm, 10n);
  recipient = (await generateKeyPairSigner()).address;
  reference = newReferenceKey() as Address;
});

/** A charge paid in two parts, among noise: the shapes a watcher meets. */
async function payInPartsAmongNoise() {
  const someoneElse = (await generateKeyPairSigner()).address;
  const poor = await generateKeyPairSigner();
  ledger.svm.airdrop(poor.address, lamports(1_000_000n));
  const unrelated = expectSuccess(
    ledger.send(await solPayment(ledger.svm, { payer, recipient, lamports: SOL, references: [newReferenceKey() as Address] })),
  );
  const first = expectSuccess(
    ledger.send(await solPayment(ledger.svm, { payer, recipient, lamports: 400_000_000n, references: [reference] })),
  );
  const failed = ledger.send(await solPayment(ledger.svm, { payer: poor, recipient, lamports: SOL, references: [reference] }));
  const misdirected = expectSuccess(
    ledger.send(await solPayment(ledger.svm, { payer, recipient: someoneElse, lamports: SOL, references: [reference] })),
  );
  const second = expectSuccess(
    ledger.send(await solPayment(ledger.svm, { payer, recipient, lamports: 600_000_000n, references: [reference] })),
  );
  return { unrelated, first, failed, misdirected, second };
}

describe('findReferencedTransfers', () => {
  it('pages back through the reference, validates each transaction and keeps the valid transfers', async () => {
    const { unrelated, first, failed, misdirected, second } = await payInPartsAmongNoise();
    const found = await findReferencedTransfers(rpc, { reference, recipient, commitment: 'confirmed', pageSize: 2 });

    expect(found.transfers).toEqual([
      {
        signature: second.signature,
        slot: BigInt(second.view.slot),
        blockTime: BigInt(second.view.blockTime),
        received: 600_000_000n,
        payer: payer.address,
        confirmationStatus: 'confirmed',
      },
      {
        signature: first.signature,
        slot: BigInt(first.view.slot),
        blockTime: BigInt(first.view.blockTime),
        received: 400_000_000n,
        payer: payer.address,
        confirmationStatus: 'confirmed',
      },
    ]);
    expect(found.transfers.reduce((total, transfer) => total + transfer.received, 0n)).toBe(SOL);
    expect(found.rejected).toEqual([
      { signature: misdirected.signature, reason: 'recipient_not_found' },
      { signature: failed.signature, reason: 'transaction_failed' },
    ]);
    expect(found.transfers.map((t) => t.signature)).not.toContain(unrelated.signature);
    expect(found).toMatchObject({ newestSignature: second.signature, isComplete: true });

    // Four listed signatures in pages of two: a full page, a full page, an empty page; each `before` the last seen.
    const pages = ledger.calls.filter((call) => call.method === 'getSignaturesForAddress');
    expect(pages.map((call) => call.params)).toEqual([
      [reference, { commitment: 'confirmed', limit: 2 }],
      [reference, { commitment: 'confirmed', limit: 2, before: misdirected.signature }],
      [reference, { commitment: 'confirmed', limit: 2, before: first.signature }],
    ]);
    // The failed one was known failed from its listing: only three transactions were fetched, as version 0 JSON.
    const fetched = ledger.calls.filter((call) => call.method === 'getTransaction');
    expect(fetched.map((call) => call.params[0])).toEqual([second.signature, misdirected.signature, first.signature]);
    expect(fetched[0]?.params[1]).toEqual({ commitment: 'confirmed', encoding: 'json', maxSupportedTransactionVersion: 0 });
  });

  it('stops at untilSignature, so a later poll reads only what is new', async () => {
    const { second } = await payInPartsAmongNoise();
    const caughtUp = await findReferencedTransfers(rpc, {
      reference,
      recipient,
      commitment: 'confirmed',
      untilSignature: second.signature,
    });
    expect(caughtUp).toEqual({ transfers: [], rejected: [], newestSignature: undefined, isComplete: true });

    const late = expectSuccess(
      ledger.send(await solPayment(ledger.svm, { payer, recipient, lamports: 50_000_000n, references: [reference] })),
    );
    const next = await findReferencedTransfers(rpc, {
      reference,
      recipient,
      commitment: 'confirmed',
      untilSignature: second.signature,
      pageSize: 1,
    });
    expect(next.transfers.map((t) => [t.signature, t.received])).toEqual([[late.signature, 50_000_000n]]);
    expect(next.newestSignature).toBe(late.signature);
  });

  it("reports each transfer's confirmation status, and sees only finalized ones at 'finalized'", async () => {
    const { first, second } = await payInPartsAmongNoise();
    ledger.finalizeThrough(first.view.slot);

    const confirmed = await findReferencedTransfers(rpc, { reference, recipient, commitment: 'confirmed' });
    expect(confirmed.transfers.map((t) => [t.signature, t.confirmationStatus])).toEqual([
      [second.signature, 'confirmed'],
      [first.signature, 'finalized'],
    ]);
    const finalized = await findReferencedTransfers(rpc, { reference, recipient, commitment: 'finalized' });
    expect(finalized.transfers.map((t) => [t.signature, t.confirmationStatus])).toEqual([[first.signature, 'finalized']]);
    expect(finalized.newestSignature).toBe(first.signature);
  });

  it('reports a listed transaction the node cannot return yet as not_found', async () => {
    const { first, second } = await payInPartsAmongNoise();
    ledger.lagging.add(second.signature);
    const found = await findReferencedTransfers(rpc, { reference, recipient, commitment: 'confirmed' });
    expect(found.transfers.map((t) => t.signature)).toEqual([first.signature]);
    expect(found.rejected).toContainEqual({ signature: second.signature, reason: 'not_found' });
  });

  it('stops at maxSignatures and says the search is incomplete', async () => {
    const { second, misdirected } = await payInPartsAmongNoise();
    const found = await findReferencedTransfers(rpc, { reference, recipient, commitment: 'confirmed', maxSignatures: 2 });
    expect(found.transfers.map((t) => t.signature)).toEqual([second.signature]);
    expect(found.rejected).toEqual([{ signature: misdirected.signature, reason: 'recipient_not_found' }]);
    expect(found.isComplete).toBe(false);
  });

  it('finds token transfers by mint', async () => {
    const mint = await createMint(ledger, { authority: payer, decimals: 6 });
    await mintTokens(ledger, { authority: payer, mint, owner: payer.address, amount: 100_000_000n });
    const paid = expectSuccess(
      ledger.send(await tokenPayment(ledger.svm, { payer, mint, decimals: 6, recipient, amount: 25_000_000n, references: [reference] })),
    );

    const asToken = await findReferencedTransfers(rpc, { reference, recipient, splToken: mint, commitment: 'confirmed' });
    expect(asToken.transfers).toMatchObject([{ signature: paid.signature, received: 25_000_000n }]);
    const asSol = await findReferencedTransfers(rpc, { reference, recipient, commitment: 'confirmed' });
    expect(asSol).toMatchObject({ transfers: [], rejected: [{ signature: paid.signature, reason: 'nothing_received' }] });
  });

  it('returns u64s as bigint through the kit RPC', async () => {
    await payInPartsAmongNoise();
    const [transfer] = (await findReferencedTransfers(rpc, { reference, recipient, commitment: 'confirmed' })).transfers;
    expect(typeof transfer?.received).toBe('bigint');
    expect(typeof transfer?.slot).toBe('bigint');
    expect(typeof transfer?.blockTime).toBe('bigint');
  });

  it('refuses malformed input before calling the node', async () => {
    await expect(findReferencedTransfers(rpc, { reference: 'nope', recipient, commitment: 'confirmed' })).rejects.toThrow();
    await expect(findReferencedTransfers(rpc, { reference, recipient, commitment: 'confirmed', pageSize: 1001 })).rejects.toThrow(
      /page size/,
    );
    expect(ledger.calls).toEqual([]);
  });
});

// Compile-time: the HTTP RPC of @solana/kit is what production passes (no request is sent here).
const _live: ReferencedTransfersRpc = createSolanaRpc('http://127.0.0.1:8899');
