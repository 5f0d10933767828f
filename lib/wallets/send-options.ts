/** The Send form's choices (/wallet/send): the tokens a user can send, on which networks, with what the wallet holds. */
import { CHAINS, EVM_CHAIN_NAMES, type ChainName } from '@/lib/chains/registry';
import { getDb } from '@/lib/db/client';
import { formatAmount } from '@/lib/money';
import { cachedBalance, isChainConnected } from './cached-balance';
import { userEvmWallet } from './user-evm-wallet';

export interface SendOption {
  /** `${chain}:${tokenAddress}`, the form's value. */
  value: string;
  chain: ChainName;
  label: string;
  isTestnet: boolean;
}

/** What the user can send: every registry token of the EVM networks with an RPC, with the wallet's balance when known. */
export async function sendOptions(userId: string): Promise<{ from: string; options: SendOption[] }> {
  const wallet = await userEvmWallet(getDb(), userId);
  const chains = EVM_CHAIN_NAMES.filter(isChainConnected).sort((a, b) => Number(CHAINS[a].isTestnet) - Number(CHAINS[b].isTestnet));
  const options = await Promise.all(
    chains.flatMap((chain) =>
      CHAINS[chain].tokens.map(async (token): Promise<SendOption> => {
        const balance = await cachedBalance(chain, token, wallet.address);
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
  return { from: wallet.address, options };
}
