/**
 * wagmi configuration for the browser: the injected connector (MetaMask and other EIP-1193 wallets)
 * and the EVM chains of the registry. RPC URLs are the browser wallet's concern; the app itself
 * talks to chains from the server.
 */
import { defineChain, type Chain } from 'viem';
import { createConfig, http, injected } from 'wagmi';
import { mainnet } from 'wagmi/chains';
import { CHAINS, EVM_CHAIN_NAMES } from './registry';

const registryChains: Chain[] = EVM_CHAIN_NAMES.map((name) => {
  const chain = CHAINS[name];
  const native = chain.tokens.find((t) => t.isNative)!;
  return defineChain({
    id: chain.evmChainId!,
    name: chain.displayName,
    nativeCurrency: { name: native.name, symbol: native.symbol, decimals: native.decimals },
    rpcUrls: { default: { http: [] } },
    ...(chain.explorerUrl ? { blockExplorers: { default: { name: 'Explorer', url: chain.explorerUrl } } } : {}),
    testnet: chain.isTestnet,
  });
});

const chains = [mainnet, ...registryChains] as [Chain, ...Chain[]];

export const wagmiConfig = createConfig({
  chains,
  connectors: [injected()],
  transports: Object.fromEntries(chains.map((chain) => [chain.id, http()])),
  ssr: true,
});
