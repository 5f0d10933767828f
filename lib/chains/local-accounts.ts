/**
 * The accounts of the local development chains (anvil's well-known mnemonic): public test keys that hold
 * nothing on a real network. The dev stack (scripts/stack/) funds them; the demo seed and the sandbox
 * provider sign with them.
 */
import { mnemonicToAccount } from 'viem/accounts';

/** anvil's well-known development mnemonic: its accounts are funded with 10 000 native coins each. */
export const LOCAL_DEV_MNEMONIC = 'test test test test test test test test test test test junk';
/** Account 0 deploys and mints the demo tokens. */
export const localMinterAccount = mnemonicToAccount(LOCAL_DEV_MNEMONIC, { addressIndex: 0 });
/** Account 1 is the demo consumer's external wallet (e.g. imported into MetaMask), funded with every demo token. */
export const localDemoPayerAccount = mnemonicToAccount(LOCAL_DEV_MNEMONIC, { addressIndex: 1 });
