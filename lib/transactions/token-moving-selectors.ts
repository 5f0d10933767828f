/**
 * Functions a fulfilment may never call: every standard way to move, approve or hand over tokens
 * (ERC-20, EIP-2612 / DAI permit, ERC-721, ERC-1155, ERC-777, ERC-677 / ERC-1363, EIP-3009). The service
 * wallet holds the merchant's funds, so one such call with an attacker's arguments drains it (finding N3).
 *
 * Compared by 4-byte selector, never by name: an uploaded ABI can call `approve(address,uint256)`
 * "grantItem", and the selector is what the contract dispatches on. The one list: the transfer gate
 * refuses these for `item_contract` destinations (transfer-policy.ts), and the contracts domain refuses
 * them when a rule is saved (lib/contracts/create-rule.ts) and before a call is recorded
 * (start-fulfilments.ts), with a message naming the standard function.
 */
import { toFunctionSelector, type AbiFunction, type Hex } from 'viem';

const TOKEN_MOVING_SIGNATURES = [
  // ERC-20 and its common extensions
  'approve(address,uint256)',
  'transfer(address,uint256)',
  'transferFrom(address,address,uint256)',
  'increaseAllowance(address,uint256)',
  'increaseApproval(address,uint256)',
  'decreaseAllowance(address,uint256)',
  // EIP-2612 permit, DAI's permit, Permit2-style permit with a signature blob
  'permit(address,address,uint256,uint256,uint8,bytes32,bytes32)',
  'permit(address,address,uint256,uint256,bool,uint8,bytes32,bytes32)',
  'permit(address,address,uint256,uint256,bytes)',
  // ERC-721 / ERC-1155
  'setApprovalForAll(address,bool)',
  'safeTransferFrom(address,address,uint256)',
  'safeTransferFrom(address,address,uint256,bytes)',
  'safeTransferFrom(address,address,uint256,uint256,bytes)',
  'safeBatchTransferFrom(address,address,uint256[],uint256[],bytes)',
  // ERC-1363 (transferAndCall family) and approveAndCall
  'transferAndCall(address,uint256)',
  'transferAndCall(address,uint256,bytes)',
  'transferFromAndCall(address,address,uint256)',
  'transferFromAndCall(address,address,uint256,bytes)',
  'approveAndCall(address,uint256)',
  'approveAndCall(address,uint256,bytes)',
  // ERC-777
  'send(address,uint256,bytes)',
  'operatorSend(address,address,uint256,bytes,bytes)',
  'authorizeOperator(address)',
  // EIP-3009 (USDC)
  'transferWithAuthorization(address,address,uint256,uint256,uint256,bytes32,uint8,bytes32,bytes32)',
  'transferWithAuthorization(address,address,uint256,uint256,uint256,bytes32,bytes)',
  'receiveWithAuthorization(address,address,uint256,uint256,uint256,bytes32,uint8,bytes32,bytes32)',
] as const;

/** selector (0x + 8 lowercase hex) → the standard function it belongs to. */
export const TOKEN_MOVING_SELECTORS: ReadonlyMap<Hex, string> = new Map(
  TOKEN_MOVING_SIGNATURES.map((signature) => [toFunctionSelector(`function ${signature}`).toLowerCase() as Hex, signature]),
);

/** The standard token-moving function `fn` dispatches to (whatever its name), or undefined. */
export function tokenMovingFunction(fn: AbiFunction): string | undefined {
  return TOKEN_MOVING_SELECTORS.get(toFunctionSelector(fn).toLowerCase() as Hex);
}
