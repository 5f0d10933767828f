/**
 * What a relayed call did: `handleOps` succeeds even when the account's call reverts (the EntryPoint
 * catches it and emits `UserOperationEvent` with success = false), so a receipt's status alone says
 * nothing about the value. Undefined: no event for that sender (the operation never ran).
 */
import { getAddress, parseEventLogs, type Address, type TransactionReceipt } from 'viem';
import { entryPoint08Abi } from 'viem/account-abstraction';
import { ENTRY_POINT_V08_ADDRESS } from '@/lib/chains/smart-account-contracts';

export function userOperationOutcome(
  receipt: Pick<TransactionReceipt, 'logs'>,
  sender: Address | string,
): 'success' | 'reverted' | undefined {
  const events = parseEventLogs({ abi: entryPoint08Abi, eventName: 'UserOperationEvent', logs: receipt.logs }).filter(
    (event) => getAddress(event.address) === ENTRY_POINT_V08_ADDRESS && getAddress(event.args.sender) === getAddress(sender),
  );
  const last = events[events.length - 1];
  if (!last) return undefined;
  return last.args.success ? 'success' : 'reverted';
}
