/**
 * What each chain supports for smart accounts (docs/adr/0035), as plain facts: no RPC, no configuration, so the
 * local chain launcher (and the e2e helpers that import it) can read the hardfork without the app's runtime.
 * The operator's switch and the deployment check are smart-account-status.ts's.
 */
import type { ChainName } from '@/lib/chains/registry';

export interface ChainSmartAccountFacts {
  /** What the chain supports: EIP-7702 delegation, nothing (today's top-up path), or Solana's fee payer (no top-ups there). */
  mode: 'eip7702' | 'topup' | 'fee_payer';
  /** The anvil hardfork of its local node (scripts/stack/local-chain.ts). */
  localHardfork: 'prague';
  /** Why, in one line (ADR 0035 has the sources). */
  fact: string;
}

const PASCAL = 'BSC Pascal hardfork (BEP-441, mainnet 2025-03-20, testnet 2025-02-25)';
const BHILAI = 'Polygon PoS Bhilai hardfork (PIP-52, 2025)';
const SUBNET_EVM = 'DFK Chain is an Avalanche L1 on Subnet-EVM, which has not activated EIP-7702';

export const SMART_ACCOUNT_SUPPORT: Readonly<Record<ChainName, ChainSmartAccountFacts>> = {
  POLYGON: { mode: 'eip7702', localHardfork: 'prague', fact: BHILAI },
  POLYGON_AMOY: { mode: 'eip7702', localHardfork: 'prague', fact: BHILAI },
  BSC: { mode: 'eip7702', localHardfork: 'prague', fact: PASCAL },
  BSC_TESTNET: { mode: 'eip7702', localHardfork: 'prague', fact: PASCAL },
  DFK: { mode: 'topup', localHardfork: 'prague', fact: SUBNET_EVM },
  DFK_TESTNET: { mode: 'topup', localHardfork: 'prague', fact: SUBNET_EVM },
  SOLANA: { mode: 'fee_payer', localHardfork: 'prague', fact: 'Solana: the gas tank is the fee payer (no top-ups)' },
  SOLANA_DEVNET: { mode: 'fee_payer', localHardfork: 'prague', fact: 'Solana: the gas tank is the fee payer (no top-ups)' },
};
