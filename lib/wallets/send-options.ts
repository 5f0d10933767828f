/** The Send form's choices (/wallet/send): the tokens a user can send, on which networks, with what the wallet holds. */
import { CHAIN_NAMES, CHAINS, type ChainName } from '@/lib/chains/registry';
import { getDb } from '@/lib/db/client';
import { formatAmount } from '@/lib/money';
import { cachedBalance, isChainConnected } from './cached-balance';
import { userWallets } from './user-wallets';

export interface SendOption {
  /** `${chain}:${tokenAddress}`, the form's value. */
  value: string;
  chain: ChainName;
  label: string;
  isTestnet: boolean;
}

/**
 * What the user can send: every registry token of the networks with an RPC (EVM ones from the EVM wallet,
 * Solana from the Solana wallet), with the wallet's balance when known.
 */
export async function sendOptions(userId: string): Promise<{ from: string; solanaFrom: string; options: SendOption[] }> {
  const from = await userWallets(getDb(), userId);
  const chains = CHAIN_NAMES.filter((chain) => isChainConnected(chain) && from[CHAINS[chain].family] !== '').sort(
    (a, b) => Number(CHAINS[a].isTestnet) - Number(CHAINS[b].isTestnet),
  );
  const options = await Promise.all(
    chains.flatMap((chain) =>
      CHAINS[chain].tokens.map(async (token): Promise<SendOption> => {
        const balance = await cachedBalance(chain, token, from[CHAINS[chain].family]);
        const held = balance === undefined ? 'balance unavailable' : `${formatAmount(balance, token.decimals)} held`;
        return {
          value: `${chain}:${token.address}`,
          chain,
          label: `${token.symbol} on ${CHAINS[chain].displayName} (${held})`,
          isTestnet: CHAINS[chain].isTestnet,
        };
      }),
    ),
  );
  return { from: from.evm, solanaFrom: from.solana, options };
}
