/**
 * Standard payment request URIs for wallets: EIP-681 on EVM chains, a Solana Pay transfer request on Solana.
 *   native:  ethereum:<to>@<chainId>?value=<wei>
 *   ERC-20:  ethereum:<token>@<chainId>/transfer?address=<to>&uint256=<base units>
 *   Solana:  solana:<to>?amount=<decimal>&spl-token=<mint>&reference=<key>&message=…
 */
import type { ChainInfo } from '@/lib/chains/registry';
import { solanaPayTransferRequest } from './solana/solana-pay-transfer-request';

function eip681Uri(input: { chainId: number; to: string; tokenAddress: string; isNative: boolean; amountBaseUnits: bigint }): string {
  if (input.isNative) return `ethereum:${input.to}@${input.chainId}?value=${input.amountBaseUnits}`;
  return `ethereum:${input.tokenAddress}@${input.chainId}/transfer?address=${input.to}&uint256=${input.amountBaseUnits}`;
}

/**
 * What a payer's wallet is asked to send now: the amount still due (total − what has arrived), so a
 * payer who already sent part and scans again is asked only for the rest, never the total again.
 */
export function amountToRequest(input: { totalBaseUnits: bigint; receivedBaseUnits: bigint }): bigint {
  const due = input.totalBaseUnits - input.receivedBaseUnits;
  return due > 0n ? due : 0n;
}

/** The wallet link and QR payload of a charge's deposit address, for `amountBaseUnits`. */
export function paymentRequestUri(input: {
  chain: ChainInfo;
  chargeId: string;
  deposit: { address: string; reference: string | null };
  token: { address: string; decimals: number; isNative: boolean };
  amountBaseUnits: bigint;
}): string {
  const { chain, deposit, token } = input;
  if (chain.family === 'solana') {
    return solanaPayTransferRequest({
      recipient: deposit.address,
      amountBaseUnits: input.amountBaseUnits,
      decimals: token.decimals,
      splToken: token.isNative ? undefined : token.address,
      references: deposit.reference ? [deposit.reference] : [],
      message: `Charge ${input.chargeId}`,
    });
  }
  return eip681Uri({
    chainId: chain.evmChainId!,
    to: deposit.address,
    tokenAddress: token.address,
    isNative: token.isNative,
    amountBaseUnits: input.amountBaseUnits,
  });
}
