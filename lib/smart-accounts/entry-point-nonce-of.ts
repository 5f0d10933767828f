/**
 * The EntryPoint nonce a recorded relayed transaction uses for `sender`: read back from its `handleOps`
 * call data (the signed UserOperation inside). The engine queues a new relayed spend of an account after the
 * ones it has in flight by this nonce, so it never needs a column of its own. Undefined: not a handleOps
 * call, or no operation of that sender.
 */
import { decodeFunctionData, getAddress, type Hex } from 'viem';
import { entryPoint08Abi } from 'viem/account-abstraction';

export function entryPointNonceOf(callData: Hex | string | null, sender: string): bigint | undefined {
  if (!callData) return undefined;
  try {
    const decoded = decodeFunctionData({ abi: entryPoint08Abi, data: callData as Hex });
    if (decoded.functionName !== 'handleOps') return undefined;
    const [operations] = decoded.args;
    const own = operations.filter((op) => getAddress(op.sender) === getAddress(sender));
    return own.length ? own[own.length - 1]!.nonce : undefined;
  } catch {
    return undefined;
  }
}
