/**
 * What the dashboard's Balances page shows: the merchant's service wallet with its balances on the
 * mode's networks, the funds still awaiting refund, the custom tokens it may withdraw too, and whether (and from when) the viewer may withdraw,
 * including the two-factor sign-in a verified merchant's owner needs.
 * Reads only, apart from creating the merchant's wallets the first time (ensureMerchantWallets is a
 * no-op once they exist).
 */
import 'server-only';
import { CHAINS, type ChainName } from '@/lib/chains/registry';
import { secondFactorReadiness } from '@/lib/accounts/two-factor/second-factor';
import { getDb } from '@/lib/db/client';
import { and, eq } from 'drizzle-orm';
import { merchantTokens, type ApiKeyMode, type MemberRole } from '@/lib/db/schema';
import { listStrandedFunds, type StrandedFunds } from '@/lib/refunds/stranded-funds';
import { ensureMerchantWallets } from '@/lib/keyring/create-wallets';
import { withBalances, type WalletWithBalances } from '@/lib/merchants/linked-accounts';
import { withdrawalHeldUntil } from '@/lib/merchants/withdrawal-hold';
import { roleAllows } from '@/lib/merchants/permissions';
import { chainsOfMode } from '@/lib/merchants/tokens';

export interface BalancesPage {
  /** The merchant's service wallets (EVM, then Solana) with their balances on the mode's networks. */
  wallets: WalletWithBalances[];
  /** The networks of the mode: what a withdrawal may be made on (from the wallet of the network's family). */
  chains: ChainName[];
  /** The merchant's custom ERC-20s on the mode's EVM networks: withdrawable like registry tokens. */
  customTokens: { chain: ChainName; address: string; symbol: string }[];
  stranded: StrandedFunds[];
  canWithdraw: boolean;
  /** A new owner's withdrawals are held until then (null: not held). */
  heldUntil: Date | null;
  /**
   * Withdrawals of a verified merchant need the owner's two-factor sign-in (counted in live mode only
   * once FACTOR_COOLING_HOURS old): 'not_needed', or its state, said before the form is filled.
   */
  twoFactor: { state: 'not_needed' | 'ready' | 'none' } | { state: 'cooling'; usableFrom: Date };
}

export async function loadBalancesPage(input: {
  merchantId: string;
  userId: string;
  role: MemberRole;
  mode: ApiKeyMode;
  merchantVerified: boolean;
}): Promise<BalancesPage> {
  const db = getDb();
  const chains = chainsOfMode(input.mode);
  const serviceWallets = await ensureMerchantWallets(db, input.merchantId);
  const canWithdraw = roleAllows(input.role, 'funds.withdraw');
  const [wallets, stranded, heldUntil, twoFactor, custom] = await Promise.all([
    Promise.all(serviceWallets.map((wallet) => withBalances(wallet, chains))),
    listStrandedFunds({ merchantId: input.merchantId, mode: input.mode }),
    canWithdraw ? withdrawalHeldUntil(db, { merchantId: input.merchantId, userId: input.userId }) : null,
    // The same rule withdraw.ts enforces (requireSecondFactor), read instead of thrown.
    canWithdraw && input.merchantVerified
      ? secondFactorReadiness(input.userId, { mode: input.mode })
      : Promise.resolve({ state: 'not_needed' as const }),
    db
      .select({ chain: merchantTokens.chain, address: merchantTokens.address, symbol: merchantTokens.symbol })
      .from(merchantTokens)
      .where(and(eq(merchantTokens.merchantId, input.merchantId), eq(merchantTokens.isCustom, true))),
  ]);
  const customTokens = custom.flatMap((token) => {
    const chain = chains.find((name) => name === token.chain && CHAINS[name].family === 'evm');
    return chain ? [{ chain, address: token.address, symbol: token.symbol }] : [];
  });
  return { wallets, chains, customTokens, stranded, canWithdraw, heldUntil, twoFactor };
}
