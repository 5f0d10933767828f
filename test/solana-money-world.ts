/**
 * The world of the Solana money tests on LiteSVM (lib/transactions/solana/sweep-solana.test.ts,
 * solana-money-paths.test.ts): only the Solana chains reachable (the reconciler must not touch other files' EVM
 * transfers on the shared test chains), a verified merchant, and PostgreSQL refusing every status change of a
 * Solana outbound transfer that the transfer table (lib/transactions/state.ts) does not list, so every path a file
 * runs also proves the Solana writer follows the table. Each beforeEach gets a fresh ledger.
 */
import { sql } from 'drizzle-orm';
import { LiteSVM } from 'litesvm';
import { address, createSolanaRpcFromTransport, lamports, type Address, type RpcTransport } from '@solana/kit';
import { TOKEN_PROGRAM_ADDRESS, findAssociatedTokenPda, getTokenDecoder } from '@solana-program/token';
import { CHAINS, EVM_CHAIN_NAMES, type ChainName } from '@/lib/chains/registry';
import type { SolanaRpc } from '@/lib/chains/solana-rpc';
import { getDb } from '@/lib/db/client';
import { rpcEnvName } from '@/lib/env';
import { transferMachine } from '@/lib/transactions/state';
import { gasTankSolanaKeyFromSeed } from '@/lib/transactions/gas-tank-key';
import { newMerchant, serveChainsWithoutNode, type TestMerchant } from '@/test/fixtures';
import { LiteSvmLedger } from '@/test/litesvm-view';
import { TEST_SECRETS } from '@/test/test-secrets';

export const tank = address(gasTankSolanaKeyFromSeed(TEST_SECRETS.DEPOSIT_HD_SEED).address);

/**
 * beforeAll: only Solana reachable, a verified merchant, and the trigger `guard` (one name a file: a file dropping
 * its own leaves another's) refusing every move of a Solana transfer's status that transferMachine.table lacks.
 */
export async function startSolanaMoneyWorld(guard: string): Promise<TestMerchant> {
  for (const chain of EVM_CHAIN_NAMES) delete process.env[rpcEnvName(chain)];
  serveChainsWithoutNode('SOLANA', 'SOLANA_DEVNET');
  const merchant = await newMerchant({ verified: true });
  const pairs = Object.entries(transferMachine.table).flatMap(([from, tos]) => tos.map((to) => `('${from}','${to}')`));
  await getDb().execute(
    sql.raw(`
      create or replace function ${guard}() returns trigger language plpgsql as $$
      begin
        if (old.status::text, new.status::text) not in (${pairs.join(', ')}) then
          raise exception 'transfer % cannot go from % to %', old.id, old.status, new.status;
        end if;
        return new;
      end $$`),
  );
  await getDb().execute(sql.raw(`drop trigger if exists ${guard} on outbound_transfers`));
  await getDb().execute(
    sql.raw(`
    create trigger ${guard} before update of status on outbound_transfers
    for each row when (old.status is distinct from new.status and new.chain like 'SOLANA%')
    execute function ${guard}()`),
  );
  return merchant;
}

/** afterAll: the file's trigger dropped. */
export async function stopSolanaMoneyWorld(guard: string): Promise<void> {
  await getDb().execute(sql.raw(`drop trigger if exists ${guard} on outbound_transfers`));
}

/**
 * beforeEach: a fresh ledger, the RPC of the app serving it (`wrap`: around its transport, as the configured RPC
 * is guarded), the options handing it to the Solana chains only, and the gas tank funded with `tankLamports`.
 */
export function freshSolanaLedger(setup: { wrap?: (transport: RpcTransport) => RpcTransport; tankLamports?: bigint } = {}) {
  const ledger = new LiteSvmLedger(new LiteSVM());
  const rpc: SolanaRpc = createSolanaRpcFromTransport(setup.wrap ? setup.wrap(ledger.transport) : ledger.transport);
  const options = { solanaRpcFor: (chain: ChainName) => (CHAINS[chain].family === 'solana' ? rpc : undefined) };
  if (setup.tankLamports) ledger.svm.airdrop(tank, lamports(setup.tankLamports));
  return { ledger, rpc, options };
}

/** `owner`'s balance of `mint` in `ledger`, or undefined while it has no token account. */
export async function tokenBalanceIn(ledger: LiteSvmLedger, owner: Address, mint: Address): Promise<bigint | undefined> {
  const [ata] = await findAssociatedTokenPda({ owner, mint, tokenProgram: TOKEN_PROGRAM_ADDRESS });
  const account = ledger.svm.getAccount(ata);
  return account.exists ? getTokenDecoder().decode(account.data).amount : undefined;
}
