/**
 * The Linked Accounts tab: the merchant's service wallets (where sweeps send its charges' funds) and the
 * signed-in member's own account — wallets, sign-in methods, phone — with balances on the mode's EVM
 * networks (read live from the chains; a chain that cannot be reached shows no balance, not zero).
 */
import { and, eq, isNotNull } from 'drizzle-orm';
import { maskEmail } from '@/lib/accounts/email';
import { listIdentities } from '@/lib/accounts/list-identities';
import { CHAINS, type ChainName } from '@/lib/chains/registry';
import { getDb } from '@/lib/db/client';
import { users, wallets, type ApiKeyMode, type WalletFamily } from '@/lib/db/schema';
import { formatAmount } from '@/lib/money';
import { ensureMerchantWallets } from '@/lib/keyring/create-wallets';
import { cachedBalance } from '@/lib/wallets/cached-balance';
import { tokenBalance } from '@/lib/wallets/token-balance';
import { authorizeMember } from './permissions';
import { chainsOfMode } from './tokens';

export interface WalletWithBalances {
  family: WalletFamily;
  address: string;
  balances: { chain: ChainName; chainName: string; symbol: string; amount: string | null }[];
}

export interface LinkedAccounts {
  merchantWallets: WalletWithBalances[];
  yourWallets: WalletWithBalances[];
  signInMethods: { provider: string; label: string }[];
  phone: string | null;
}

export async function loadLinkedAccounts(input: { userId: string; merchantId: string; mode: ApiKeyMode }): Promise<LinkedAccounts> {
  await authorizeMember(getDb(), { ...input, permission: 'dashboard.view' });
  const merchantRows = await ensureMerchantWallets(getDb(), input.merchantId);
  const userRows = await getDb()
    .select({ family: wallets.family, address: wallets.address })
    .from(wallets)
    .where(and(eq(wallets.userId, input.userId), isNotNull(wallets.userId)));
  const [user] = await getDb()
    .select({ phone: users.phoneE164, phoneVerifiedAt: users.phoneVerifiedAt })
    .from(users)
    .where(eq(users.id, input.userId));
  const identities = await listIdentities(input.userId);
  const chains = chainsOfMode(input.mode).filter((chain) => CHAINS[chain].family === 'evm');
  return {
    merchantWallets: await Promise.all(merchantRows.map((row) => withBalances(row, chains))),
    yourWallets: await Promise.all(userRows.map((row) => withBalances(row, chains))),
    signInMethods: identities.map((identity) => ({
      provider: identity.provider,
      label:
        identity.provider === 'email'
          ? maskEmail(identity.subject)
          : identity.provider === 'ethereum'
            ? identity.subject
            : `${identity.provider} account`,
    })),
    phone: user?.phoneVerifiedAt ? user.phone : null,
  };
}

/** The wallet's balances on those of `chains` of its family (Solana read through the wallet's cached reader). */
export async function withBalances(wallet: { family: WalletFamily; address: string }, chains: ChainName[]): Promise<WalletWithBalances> {
  const balances = await Promise.all(
    chains
      .filter((chain) => CHAINS[chain].family === wallet.family)
      .flatMap((chain) =>
        CHAINS[chain].tokens.map(async (token) => {
          const units =
            wallet.family === 'evm' ? await tokenBalance(chain, token, wallet.address) : await cachedBalance(chain, token, wallet.address);
          return {
            chain,
            chainName: CHAINS[chain].displayName,
            symbol: token.symbol,
            amount: units === undefined ? null : formatAmount(units, token.decimals),
          };
        }),
      ),
  );
  return { ...wallet, balances };
}
