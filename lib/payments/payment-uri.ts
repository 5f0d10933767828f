/**
 * Standard payment request URIs for wallets: EIP-681 on EVM chains.
 *   native:  ethereum:<to>@<chainId>?value=<wei>
 *   ERC-20:  ethereum:<token>@<chainId>/transfer?address=<to>&uint256=<base units>
 */
export function eip681Uri(input: {
  chainId: number;
  to: string;
  tokenAddress: string;
  isNative: boolean;
  amountBaseUnits: bigint;
}): string {
  if (input.isNative) return `ethereum:${input.to}@${input.chainId}?value=${input.amountBaseUnits}`;
  return `ethereum:${input.tokenAddress}@${input.chainId}/transfer?address=${input.to}&uint256=${input.amountBaseUnits}`;
}
