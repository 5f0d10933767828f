/**
 * The gas tank: a service wallet that pays network fees so nobody needs native coin to move tokens.
 * A consumer holding USDC but no POL can still pay from their balance, and a deposit address that
 * received only USDC can still be swept. The transaction engine (record-transfer.ts) sends the exact
 * shortfall (gas limit × max fee per gas, minus what the wallet holds and has in flight) just before the
 * transfer, recorded as an outbound transfer with purpose `gas_topup` — the platform's cost, queryable
 * per charge — within the caps of gas-sponsorship.ts.
 *
 * Its key is derived from DEPOSIT_HD_SEED on its own BIP-44 account (m/44'/60'/1'/0/0), so there is
 * no extra secret to manage; fund its address on every chain you run (`npm run admin -- gas-tank`).
 * On local anvil chains the launcher funds it.
 *
 * On chains with EIP-7702 smart accounts switched on (SMART_ACCOUNT_CHAINS, ADR 0035) the tank sends no
 * top-up for an ERC-20 sweep: it relays the deposit address's own signed call and pays the gas directly. A
 * deposit's first relayed sweep also approves the tank for the token; its later sweeps are the tank's own pull
 * (its EOA delegated to Simple7702Account in its first pull, executeBatch of transferFrom: ADR 0035, "Pull sweeps").
 *
 * On Solana the tank has its own key (SLIP-0010, m/44'/501'/0'/1', see gas-tank-key.ts) and pays as the
 * FEE PAYER of the transactions it sponsors, so no top-up is ever sent there: its cost is recorded next
 * to the transfer it paid for (lib/transactions/solana/solana-transfers.ts), also as purpose `gas_topup`.
 */
import { createKeyPairSignerFromBytes, address as solanaAddress, type KeyPairSigner } from '@solana/kit';
import { and, eq, ne, sql } from 'drizzle-orm';
import type { Address } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { publicClientFor } from '@/lib/chains/clients';
import { CHAIN_NAMES, CHAINS, EVM_CHAIN_NAMES, type ChainName } from '@/lib/chains/registry';
import { getDb } from '@/lib/db/client';
import { outboundTransfers } from '@/lib/db/schema';
import { formatAmount } from '@/lib/money';
import { requireSecret } from '@/lib/env';
import { gasTankAccountFromSeed, gasTankSolanaKeyFromSeed } from './gas-tank-key';
import { resolveSolanaRpc, type SolanaRpcOptions } from '@/lib/chains/solana-rpc';

let cached: { seed: string; account: PrivateKeyAccount } | undefined;
let cachedSolana: { seed: string; signer: Promise<KeyPairSigner> } | undefined;

export function gasTankAccount(): PrivateKeyAccount {
  const seed = requireSecret('DEPOSIT_HD_SEED');
  if (cached?.seed !== seed) cached = { seed, account: gasTankAccountFromSeed(seed) };
  return cached.account;
}

export function gasTankAddress(): Address {
  return gasTankAccount().address;
}

/** The tank's Solana key, as the signer that pays the fees of the transactions it sponsors. */
export function gasTankSolanaSigner(): Promise<KeyPairSigner> {
  const seed = requireSecret('DEPOSIT_HD_SEED');
  if (cachedSolana?.seed !== seed) cachedSolana = { seed, signer: createKeyPairSignerFromBytes(gasTankSolanaKeyFromSeed(seed).secretKey) };
  return cachedSolana.signer;
}

export interface GasTankChainReport {
  chain: ChainName;
  /** The tank's address on this chain: one EVM address for every EVM chain, its own key on Solana. */
  address: string;
  symbol: string;
  /** Native balance, or null when the chain's RPC cannot be reached. */
  balance: string | null;
  /** Everything the tank has paid on this chain (the platform's gas cost): top-ups on EVM, fees (and token-account rent) paid as fee payer on Solana. */
  spent: string;
  topUps: number;
}

/** For support (`npm run admin -- gas-tank status`): where to fund the tank, what it holds and what it has spent. */
export async function gasTankReport(
  options: SolanaRpcOptions = {},
): Promise<{ address: string; solanaAddress: string; chains: GasTankChainReport[] }> {
  const tank = gasTankAccount();
  const solanaTank = gasTankSolanaKeyFromSeed(requireSecret('DEPOSIT_HD_SEED')).address;
  const spent = await getDb()
    .select({
      chain: outboundTransfers.chain,
      total: sql<string>`sum(${outboundTransfers.amountBaseUnits})`,
      count: sql<number>`count(*)::int`,
    })
    .from(outboundTransfers)
    .where(and(eq(outboundTransfers.purpose, 'gas_topup'), ne(outboundTransfers.status, 'failed')))
    .groupBy(outboundTransfers.chain);
  const report = (chain: ChainName, address: string, balance: bigint | null): GasTankChainReport => {
    const native = CHAINS[chain].tokens.find((t) => t.isNative)!;
    const row = spent.find((s) => s.chain === chain);
    return {
      chain,
      address,
      symbol: native.symbol,
      balance: balance === null ? null : formatAmount(balance, native.decimals),
      spent: formatAmount(BigInt(row?.total ?? 0), native.decimals),
      topUps: row?.count ?? 0,
    };
  };
  const evm = EVM_CHAIN_NAMES.filter((chain) => publicClientFor(chain)).map(async (chain) => {
    const balance = await publicClientFor(chain)!
      .getBalance({ address: tank.address })
      .catch(() => null);
    return report(chain, tank.address, balance);
  });
  const solana = CHAIN_NAMES.filter((chain) => CHAINS[chain].family === 'solana').flatMap((chain) => {
    const rpc = resolveSolanaRpc(chain, options);
    if (!rpc) return [];
    return [
      rpc
        .getBalance(solanaAddress(solanaTank))
        .send()
        .then(({ value }) => report(chain, solanaTank, value))
        .catch(() => report(chain, solanaTank, null)),
    ];
  });
  return { address: tank.address, solanaAddress: solanaTank, chains: await Promise.all([...evm, ...solana]) };
}
