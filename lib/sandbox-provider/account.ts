/**
 * Sandpiper Pay's treasury: the account it delivers purchased tokens from. Derived from anvil's
 * development mnemonic at an index no other code uses (0 mints the demo tokens, 1 is the demo payer),
 * so the local chains can fund it (scripts/stack/stack.ts) and it holds nothing on a real network.
 */
import { mnemonicToAccount } from 'viem/accounts';
import { LOCAL_DEV_MNEMONIC } from '@/lib/chains/local-accounts';

const SANDBOX_PROVIDER_ADDRESS_INDEX = 7;
export const sandboxProviderAccount = mnemonicToAccount(LOCAL_DEV_MNEMONIC, { addressIndex: SANDBOX_PROVIDER_ADDRESS_INDEX });
