/**
 * The launcher's local Solana cluster, started as the launcher starts it (its own process, state in a directory)
 * and used over HTTP JSON-RPC through @solana/kit, as the app and wallets use it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { getTransferSolInstruction } from '@solana-program/system';
import {
  TOKEN_PROGRAM_ADDRESS,
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstructionAsync,
  getTransferCheckedInstruction,
} from '@solana-program/token';
import {
  address,
  appendTransactionMessageInstructions,
  assertIsTransactionWithBlockhashLifetime,
  compileTransaction,
  createKeyPairSignerFromBytes,
  createSolanaRpc,
  createSolanaRpcSubscriptions,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  lamports,
  pipe,
  sendAndConfirmTransactionFactory,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type Blockhash,
  type Instruction,
  type KeyPairSigner,
  type Rpc,
  type Signature,
  type SolanaRpcApi,
} from '@solana/kit';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CHAINS } from '@/lib/chains/registry';
import { localSolanaDemoPayerAccount, localSolanaMinterAccount } from '@/lib/keyring/local-solana-accounts';
import { DEMO_TOKEN_FUNDING, type LocalChainNode } from './local-chain';
import { DEMO_SOL_FUNDING, fundLocalSolanaWallet, startLocalSolanaCluster } from './local-solana';
import { startStack, type Stack } from './stack';
import { SolanaCluster } from './solana-cluster';

const USDC = CHAINS.SOLANA.tokens.find((token) => token.symbol === 'USDC')!;
const USDC_MINT = address(USDC.address);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let dataDir: string;
let stack: Stack;
let node: LocalChainNode;
let rpc: Rpc<SolanaRpcApi>;
let payer: KeyPairSigner;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'chargeport-solana-'));
  // As the launcher starts it (the suite's database: startStack starts PostgreSQL only without one).
  stack = await startStack({ dataDir, env: { DATABASE_URL: inject('stackEnv').DATABASE_URL }, chains: ['SOLANA'] });
  node = stack.localChains[0]!;
  rpc = createSolanaRpc(node.url);
  payer = await createKeyPairSignerFromBytes(localSolanaDemoPayerAccount.secretKey);
});

afterAll(async () => {
  await stack?.stop();
  await node?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('the launcher (startStack) with a Solana chain', () => {
  it('starts a local cluster for it and gives the app its RPC URL, as for an EVM chain', () => {
    expect(stack.localChains.map((local) => local.chain)).toEqual(['SOLANA']);
    expect(stack.env.RPC_URL_SOLANA).toBe(node.url);
    expect(stack.env.LOCAL_CHAINS).toBe('SOLANA');
  });
});

async function signed(feePayer: KeyPairSigner, instructions: Instruction[], blockhash?: string) {
  const { value: latest } = await rpc.getLatestBlockhash().send();
  const lifetime = blockhash ? { blockhash: blockhash as Blockhash, lastValidBlockHeight: latest.lastValidBlockHeight } : latest;
  return pipe(
    createTransactionMessage({ version: 0 }),
    (message) => setTransactionMessageFeePayerSigner(feePayer, message),
    (message) => setTransactionMessageLifetimeUsingBlockhash(lifetime, message),
    (message) => appendTransactionMessageInstructions(instructions, message),
    (message) => signTransactionMessageWithSigners(message),
  );
}

async function statusOf(signature: Signature) {
  for (let i = 0; i < 50; i++) {
    const { value } = await rpc.getSignatureStatuses([signature], { searchTransactionHistory: true }).send();
    if (value[0]) return value[0];
    await sleep(100);
  }
  throw new Error(`${signature} not seen`);
}

describe('the local Solana cluster (LiteSVM behind JSON-RPC)', () => {
  it("answers as the chain's cluster: healthy, its real genesis hash, a version", async () => {
    expect(await rpc.getHealth().send()).toBe('ok');
    expect(await rpc.getGenesisHash().send()).toBe('5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d');
    expect((await rpc.getVersion().send())['solana-core']).toEqual(expect.any(String));
  });

  it('advances its slot on a clock, with block times from the wall clock', async () => {
    const first = await rpc.getSlot().send();
    await sleep(1_000);
    const second = await rpc.getSlot().send();
    // 400 ms a slot: two or three in a second (timers may run late, never early).
    expect(second - first).toBeGreaterThanOrEqual(2n);
    expect(await rpc.getBlockHeight().send()).toBeGreaterThanOrEqual(second);
    const blockTime = await rpc.getBlockTime(second).send();
    expect(Math.abs(Number(blockTime) - Date.now() / 1000)).toBeLessThan(5);
    const epoch = await rpc.getEpochInfo().send();
    expect(epoch.absoluteSlot).toBeGreaterThanOrEqual(second);
    // A slot not produced yet has no block.
    await expect(rpc.getBlockTime(second + 1_000n).send()).rejects.toThrow();
  });

  it('plants USDC at the registry address with the local minter as mint authority, and funds the demo payer', async () => {
    const { value: mint } = await rpc.getAccountInfo(USDC_MINT, { encoding: 'jsonParsed' }).send();
    expect(mint?.owner).toBe(TOKEN_PROGRAM_ADDRESS);
    expect(mint?.data).toMatchObject({
      program: 'spl-token',
      parsed: { type: 'mint', info: { decimals: USDC.decimals, mintAuthority: localSolanaMinterAccount.address } },
    });
    expect((await rpc.getBalance(payer.address).send()).value).toBe(DEMO_SOL_FUNDING);
    const [ata] = await findAssociatedTokenPda({ owner: payer.address, mint: USDC_MINT, tokenProgram: TOKEN_PROGRAM_ADDRESS });
    const { value: balance } = await rpc.getTokenAccountBalance(ata).send();
    expect(balance.amount).toBe(String(DEMO_TOKEN_FUNDING * 10n ** BigInt(USDC.decimals)));
    // The funding is on the record: an airdrop and a mint in the payer's history.
    expect((await rpc.getSignaturesForAddress(payer.address).send()).length).toBe(2);
    // Funding again tops up only what is missing: nothing here.
    await fundLocalSolanaWallet({ chain: 'SOLANA', url: node.url, address: payer.address });
    expect((await rpc.getSignaturesForAddress(payer.address).send()).length).toBe(2);
  });

  it('requestAirdrop: a real transfer from the faucet, in the history of the recipient', async () => {
    const recipient = await generateKeyPairSigner();
    const signature = await rpc.requestAirdrop(recipient.address, lamports(2_000_000_000n)).send();
    expect((await statusOf(signature)).err).toBeNull();
    expect((await rpc.getBalance(recipient.address).send()).value).toBe(2_000_000_000n);
    const listed = await rpc.getSignaturesForAddress(recipient.address).send();
    expect(listed.map((entry) => entry.signature)).toEqual([signature]);
    const transaction = await rpc.getTransaction(signature, { encoding: 'json', maxSupportedTransactionVersion: 0 }).send();
    expect(transaction?.transaction.message.accountKeys).toContain(localSolanaMinterAccount.address);
    expect(transaction?.meta?.postBalances[1]).toBe(2_000_000_000n);
  });

  it('an SPL transfer of the demo USDC: balances, token balances and signatures for both sides, in a later slot', async () => {
    const recipient = await generateKeyPairSigner();
    const airdrop = await rpc.requestAirdrop(recipient.address, lamports(1_000_000_000n)).send();
    const airdropSlot = (await statusOf(airdrop)).slot;
    await sleep(500);
    const [source] = await findAssociatedTokenPda({ owner: payer.address, mint: USDC_MINT, tokenProgram: TOKEN_PROGRAM_ADDRESS });
    const [destination] = await findAssociatedTokenPda({ owner: recipient.address, mint: USDC_MINT, tokenProgram: TOKEN_PROGRAM_ADDRESS });
    const amount = 12_345_678n;
    const transaction = await signed(payer, [
      await getCreateAssociatedTokenIdempotentInstructionAsync({ payer, owner: recipient.address, mint: USDC_MINT }),
      getTransferCheckedInstruction({ source, mint: USDC_MINT, destination, authority: payer, amount, decimals: USDC.decimals }),
    ]);
    // Wallets simulate first (unsigned is fine: sigVerify is off by default).
    const { value: simulation } = await rpc
      .simulateTransaction(getBase64EncodedWireTransaction(transaction), { encoding: 'base64' })
      .send();
    expect(simulation.err).toBeNull();
    const signature = await rpc.sendTransaction(getBase64EncodedWireTransaction(transaction), { encoding: 'base64' }).send();
    const status = await statusOf(signature);
    expect(status.err).toBeNull();
    expect(status.slot).toBeGreaterThan(airdropSlot);

    const { value: accounts } = await rpc
      .getTokenAccountsByOwner(recipient.address, { mint: USDC_MINT }, { encoding: 'jsonParsed' })
      .send();
    expect(accounts.map((account) => [account.pubkey, account.account.data.parsed.info.tokenAmount.amount])).toEqual([
      [destination, String(amount)],
    ]);
    expect((await rpc.getTokenAccountBalance(destination).send()).value.amount).toBe(String(amount));
    const [forRecipient] = await rpc.getSignaturesForAddress(recipient.address).send();
    expect(forRecipient?.signature).toBe(signature);
    expect(forRecipient?.blockTime).toBe(await rpc.getBlockTime(status.slot).send());
    expect((await rpc.getSignaturesForAddress(destination, { limit: 1 }).send())[0]?.signature).toBe(signature);
    const view = await rpc.getTransaction(signature, { encoding: 'json', maxSupportedTransactionVersion: 0 }).send();
    expect(view?.meta?.postTokenBalances?.find((balance) => balance.owner === recipient.address)?.uiTokenAmount.amount).toBe(
      String(amount),
    );
    // The fee, in lamports: 5 000 a signature, paid by the fee payer.
    expect(view?.meta?.fee).toBe(5_000n);
    const { value: several } = await rpc.getMultipleAccounts([destination, recipient.address], { encoding: 'base64' }).send();
    expect(several.map((account) => account?.owner)).toEqual([TOKEN_PROGRAM_ADDRESS, '11111111111111111111111111111111']);
  });

  it('getBlocks and getBlock: every complete slot has a block, its transactions as a node shows them', async () => {
    const recipient = await generateKeyPairSigner();
    const signature = await rpc.requestAirdrop(recipient.address, lamports(3_000_000_000n)).send();
    const { slot } = await statusOf(signature);
    // The slot is complete once the next one began.
    while ((await rpc.getSlot().send()) <= slot) await sleep(100);
    const listed = await rpc.getBlocks(slot - 1n, slot + 1_000n, { commitment: 'confirmed' }).send();
    expect(listed[0]).toBe(slot - 1n);
    expect(listed).toContain(slot);
    // The current slot is still being filled: not listed, no block yet.
    const current = await rpc.getSlot().send();
    expect(listed.at(-1)!).toBeLessThan(current);
    await expect(rpc.getBlock(current + 10n, { maxSupportedTransactionVersion: 0 }).send()).rejects.toThrow();

    const accounts = await rpc
      .getBlock(slot, { transactionDetails: 'accounts', rewards: false, maxSupportedTransactionVersion: 0, commitment: 'confirmed' })
      .send();
    expect(accounts?.blockTime).toBe(await rpc.getBlockTime(slot).send());
    expect(accounts?.parentSlot).toBe(slot - 1n);
    const found = accounts?.transactions.find((transaction) => transaction.transaction.signatures[0] === signature);
    // Keys with their roles: the faucet signs and pays, the recipient is written.
    expect(found?.transaction.accountKeys.slice(0, 2)).toEqual([
      { pubkey: localSolanaMinterAccount.address, signer: true, source: 'transaction', writable: true },
      { pubkey: recipient.address, signer: false, source: 'transaction', writable: true },
    ]);
    expect(found?.meta?.postBalances[1]).toBe(3_000_000_000n);
    expect(found?.meta).not.toHaveProperty('logMessages');

    const full = await rpc.getBlock(slot, { maxSupportedTransactionVersion: 0 }).send();
    const fullFound = full?.transactions.find((transaction) => transaction.transaction.signatures[0] === signature);
    expect(fullFound?.transaction.message.accountKeys).toContain(recipient.address);
    expect(full).toHaveProperty('rewards', []);
    const signatures = await rpc.getBlock(slot, { transactionDetails: 'signatures', maxSupportedTransactionVersion: 0 }).send();
    expect(signatures?.signatures).toContain(signature);
    // A version 0 transaction needs maxSupportedTransactionVersion, as on a node.
    await expect(rpc.getBlock(slot).send()).rejects.toMatchObject({ context: { __code: -32015 } });
  });

  it('refuses a transaction whose blockhash it never issued (or that expired), as a node does', async () => {
    const recipient = await generateKeyPairSigner();
    const stale = await signed(
      payer,
      [getTransferSolInstruction({ source: payer, destination: recipient.address, amount: lamports(1_000_000n) })],
      '4uhcVJyU9pJkvQyS88uRDiswHXSCkY3zQawwpjk2NsNY',
    );
    expect((await rpc.isBlockhashValid('4uhcVJyU9pJkvQyS88uRDiswHXSCkY3zQawwpjk2NsNY' as Blockhash).send()).value).toBe(false);
    const refused = await rpc
      .sendTransaction(getBase64EncodedWireTransaction(stale), { encoding: 'base64' })
      .send()
      .catch((error: unknown) => error);
    // -32002 (preflight failed), its cause the transaction error kit decodes: BlockhashNotFound.
    expect(refused).toMatchObject({ context: { __code: -32002 }, cause: { message: 'Blockhash not found' } });
    // With skipPreflight it is accepted and dropped: it never lands.
    await rpc.sendTransaction(getBase64EncodedWireTransaction(stale), { encoding: 'base64', skipPreflight: true }).send();
    await sleep(500);
    expect((await rpc.getBalance(recipient.address).send()).value).toBe(0n);
    const { value: latest } = await rpc.getLatestBlockhash().send();
    expect((await rpc.isBlockhashValid(latest.blockhash).send()).value).toBe(true);
    expect(latest.lastValidBlockHeight - (await rpc.getBlockHeight().send())).toBeGreaterThan(140n);
    // Fees are fixed: 5 000 lamports a signature.
    const message = compileTransaction(
      await pipe(
        createTransactionMessage({ version: 0 }),
        (m) => setTransactionMessageFeePayerSigner(payer, m),
        (m) => setTransactionMessageLifetimeUsingBlockhash(latest, m),
        (m) =>
          appendTransactionMessageInstructions(
            [getTransferSolInstruction({ source: payer, destination: recipient.address, amount: 1n })],
            m,
          ),
      ),
    ).messageBytes;
    const { value: fee } = await rpc.getFeeForMessage(Buffer.from(message).toString('base64') as never).send();
    expect(fee).toBe(5_000n);
  });

  it('websocket subscriptions on the same port: kit sends and confirms; slot and account notifications arrive', async () => {
    const rpcSubscriptions = createSolanaRpcSubscriptions(node.url.replace(/^http/, 'ws'));
    const recipient = await generateKeyPairSigner();
    const abort = new AbortController();
    try {
      const accountChanges = await rpcSubscriptions
        .accountNotifications(recipient.address, { encoding: 'base64' })
        .subscribe({ abortSignal: abort.signal });
      const slots = await rpcSubscriptions.slotNotifications().subscribe({ abortSignal: abort.signal });
      // Read from the start: kit's iterators only queue what arrives once iteration has begun, and the account's
      // change may well arrive while the send is being confirmed.
      const firstChange = (async () => {
        for await (const change of accountChanges) return change;
      })();
      const transaction = await signed(payer, [
        getTransferSolInstruction({ source: payer, destination: recipient.address, amount: lamports(3_000_000_000n) }),
      ]);
      // Signature notifications and the block height watch (slot notifications) of kit's own confirmation.
      assertIsTransactionWithBlockhashLifetime(transaction);
      await sendAndConfirmTransactionFactory({ rpc, rpcSubscriptions })(transaction, { commitment: 'confirmed' });
      expect((await rpc.getBalance(recipient.address).send()).value).toBe(3_000_000_000n);
      expect((await firstChange)?.value.lamports).toBe(3_000_000_000n);
      let previous = -1n;
      for await (const notification of slots) {
        expect(notification.slot).toBeGreaterThan(previous);
        if (previous >= 0n) break;
        previous = notification.slot;
      }
    } finally {
      abort.abort();
    }
  });

  it('keeps its accounts, history and clock across a restart (state in the data directory)', async () => {
    const before = await rpc.getSignaturesForAddress(payer.address).send();
    const slot = await rpc.getSlot().send();
    await node.stop();
    // The launcher's state directory for its Solana clusters.
    node = await startLocalSolanaCluster({ chain: 'SOLANA', stateDir: path.join(dataDir, 'solana') });
    rpc = createSolanaRpc(node.url);
    expect(await rpc.getSlot().send()).toBeGreaterThanOrEqual(slot);
    expect((await rpc.getSignaturesForAddress(payer.address).send()).map((entry) => entry.signature)).toEqual(
      before.map((entry) => entry.signature),
    );
    const [ata] = await findAssociatedTokenPda({ owner: payer.address, mint: USDC_MINT, tokenProgram: TOKEN_PROGRAM_ADDRESS });
    expect(BigInt((await rpc.getTokenAccountBalance(ata).send()).value.amount)).toBeLessThan(DEMO_TOKEN_FUNDING * 10n ** 6n);
  });
});

describe('blockhash lifetime of the local Solana cluster', () => {
  it('a blockhash is valid for 150 blocks after the slot that issued it, then refused', async () => {
    const cluster = await SolanaCluster.create({ chain: 'SOLANA_DEVNET' });
    const call = async (method: string, params: unknown[] = []) =>
      (await cluster.handle({ id: 1, method, params })) as { result?: { value: unknown }; error?: unknown };
    const latest = (await call('getLatestBlockhash')).result!.value as { blockhash: string; lastValidBlockHeight: number };
    const issuedAt = cluster.slot;
    expect(latest.lastValidBlockHeight).toBe(issuedAt + 150);
    // The clock runs on: 150 slots later the blockhash is still valid, one more and it has expired.
    const start = Date.now();
    cluster.tick(start + 150 * 400 + 1);
    expect(cluster.slot).toBeGreaterThanOrEqual(issuedAt + 150);
    if (cluster.slot === issuedAt + 150) expect((await call('isBlockhashValid', [latest.blockhash])).result!.value).toBe(true);
    cluster.tick(start + 152 * 400 + 1);
    expect((await call('isBlockhashValid', [latest.blockhash])).result!.value).toBe(false);
    // A new one was issued meanwhile.
    const next = (await call('getLatestBlockhash')).result!.value as { blockhash: string };
    expect(next.blockhash).not.toBe(latest.blockhash);
    expect((await call('isBlockhashValid', [next.blockhash])).result!.value).toBe(true);
  });
});
