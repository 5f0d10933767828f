/**
 * The launcher's local Solana clusters (solana-cluster.ts), as local-chain.ts is for EVM: one child process per
 * Solana chain without an RPC URL, on loopback, its state in `<dataDir>/solana/`; and the demo funding, sent over
 * JSON-RPC as any client would (an airdrop from the faucet, a mint of each demo SPL token), so every top-up is a
 * real transaction in the recipient's history.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import {
  TOKEN_PROGRAM_ADDRESS,
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstructionAsync,
  getMintToInstruction,
} from '@solana-program/token';
import {
  address as toAddress,
  appendTransactionMessageInstructions,
  createKeyPairSignerFromBytes,
  createSolanaRpc,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  lamports,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type Rpc,
  type Signature,
  type SolanaRpcApi,
} from '@solana/kit';
import { CHAINS, type ChainName } from '@/lib/chains/registry';
import { localSolanaMinterAccount } from '@/lib/keyring/local-solana-accounts';
import { DEMO_TOKEN_FUNDING, stopProcess, type LocalChainNode } from './local-chain';

const ROOT = path.resolve(import.meta.dirname, '../..');
/** SOL each funded wallet gets (it is topped up below a tenth of it). */
export const DEMO_SOL_FUNDING = 10_000n * 1_000_000_000n;

export async function startLocalSolanaCluster(options: {
  chain: ChainName;
  /** Directory for the cluster's state; omit for a throwaway cluster (tests). */
  stateDir?: string;
}): Promise<LocalChainNode> {
  if (CHAINS[options.chain].family !== 'solana') throw new Error(`${options.chain} is not a Solana chain`);
  try {
    createRequire(import.meta.url).resolve('litesvm');
  } catch {
    // A devDependency (package.json), as anvil: an install without them (`--omit=dev`) has no local clusters.
    throw new Error(
      'No litesvm package: the local Solana clusters are a development part, installed with the devDependencies; run `npm install` without --omit=dev, or set RPC_URL_SOLANA / RPC_URL_SOLANA_DEVNET or LOCAL_CHAIN_NODES=false',
    );
  }
  // Port 0: the cluster binds a free port itself and says which (choosing one here and passing it on races with
  // the other nodes starting beside it).
  const args = ['scripts/solana-cluster.mts', options.chain, '0', ...(options.stateDir ? [options.stateDir] : [])];
  // `node --import tsx`, not the tsx CLI: one process, so a SIGKILL (stopProcess's last resort, the reaper) ends
  // the cluster itself and not only a wrapper around it.
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  let url: string;
  try {
    url = await listeningUrl(child);
    await waitForHealth(url, () => child.exitCode);
  } catch (error) {
    await stopProcess(child);
    throw error;
  }
  return { chain: options.chain, url, process: child, stop: () => stopProcess(child) };
}

/** The URL the cluster prints once it listens ("listening http://127.0.0.1:PORT"). */
function listeningUrl(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error('the local Solana cluster did not start within 30 s')), 30_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-1_000);
      const found = /^listening (http:\/\/\S+)$/m.exec(output);
      if (found) {
        clearTimeout(timer);
        resolve(found[1]!);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the local Solana cluster exited with code ${code}`));
    });
  });
}

async function waitForHealth(url: string, exitCode: () => number | null): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (exitCode() !== null) throw new Error(`the local Solana cluster exited with code ${exitCode()}`);
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getHealth' }),
      });
      if (response.ok && ((await response.json()) as { result?: unknown }).result === 'ok') return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the local Solana cluster did not answer at ${url} within 30 s`);
}

/**
 * Tops a wallet up on a local Solana cluster: DEMO_SOL_FUNDING lamports by requestAirdrop (a transfer from the
 * faucet) and DEMO_TOKEN_FUNDING of each of the chain's demo SPL tokens (minted into its associated token
 * account), each only when it holds less than a tenth of that. Development seed only.
 */
export async function fundLocalSolanaWallet(options: { chain: ChainName; url: string; address: string }): Promise<void> {
  const rpc = createSolanaRpc(options.url);
  const owner = toAddress(options.address);
  const { value: balance } = await rpc.getBalance(owner).send();
  if (balance < DEMO_SOL_FUNDING / 10n) {
    await confirmed(rpc, await rpc.requestAirdrop(owner, lamports(DEMO_SOL_FUNDING)).send());
  }
  const minter = await createKeyPairSignerFromBytes(localSolanaMinterAccount.secretKey);
  for (const token of CHAINS[options.chain].tokens.filter((t) => !t.isNative)) {
    const mint = toAddress(token.address);
    const target = DEMO_TOKEN_FUNDING * 10n ** BigInt(token.decimals);
    const { value: accounts } = await rpc.getTokenAccountsByOwner(owner, { mint }, { encoding: 'jsonParsed' }).send();
    const held = accounts.reduce((sum, account) => sum + BigInt(account.account.data.parsed.info.tokenAmount.amount), 0n);
    if (held >= target / 10n) continue;
    const [ata] = await findAssociatedTokenPda({ owner, mint, tokenProgram: TOKEN_PROGRAM_ADDRESS });
    const { value: lifetime } = await rpc.getLatestBlockhash().send();
    const transaction = await pipe(
      createTransactionMessage({ version: 0 }),
      (message) => setTransactionMessageFeePayerSigner(minter, message),
      (message) => setTransactionMessageLifetimeUsingBlockhash(lifetime, message),
      async (message) =>
        appendTransactionMessageInstructions(
          [
            await getCreateAssociatedTokenIdempotentInstructionAsync({ payer: minter, owner, mint }),
            getMintToInstruction({ mint, token: ata, mintAuthority: minter, amount: target }),
          ],
          message,
        ),
      async (message) => signTransactionMessageWithSigners(await message),
    );
    const signature = await rpc.sendTransaction(getBase64EncodedWireTransaction(transaction), { encoding: 'base64' }).send();
    await confirmed(rpc, signature);
  }
}

/** Waits until the cluster reports the transaction (it executes on arrival); throws when it failed. */
async function confirmed(rpc: Rpc<SolanaRpcApi>, signature: Signature): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const { value } = await rpc.getSignatureStatuses([signature]).send();
    const status = value[0];
    if (status?.err) throw new Error(`Solana funding transaction ${signature} failed: ${JSON.stringify(status.err)}`);
    if (status) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`Solana funding transaction ${signature} was not seen within 10 s`);
}
