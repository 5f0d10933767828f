/**
 * What the hosted checkout shows while a charge is being paid: status, amounts received and due,
 * each payment with its confirmations so far / needed and an explorer link, and where to pay.
 * Public by charge id (the id is the capability the paymentUrl carries).
 */
import { asc, eq } from 'drizzle-orm';
import { CHAINS, explorerTxUrl, type ChainInfo, type ChainName, type TokenInfo } from '@/lib/chains/registry';
import { publicClientFor, requiredConfirmations } from '@/lib/chains/clients';
import type { ChargeStatus } from '@/lib/charges/state';
import { getDb } from '@/lib/db/client';
import { charges, depositAddresses, payments, type ChargeRow } from '@/lib/db/schema';
import { formatAmount } from '@/lib/money';
import { eip681Uri } from './payment-uri';
import { solanaPayTransferRequest } from './solana/solana-pay-uri';
import { confirmationsOf } from './watch-chain';
import { fundingOf } from './settle-charge';
import { tokenOfCharge } from '@/lib/charges/charge-token';

export interface CheckoutStatus {
  chargeId: string;
  status: ChargeStatus;
  total: string;
  received: string;
  due: string;
  symbol: string;
  expiresAt: string;
  successUrl: string | null;
  payments: {
    txHash: string;
    amount: string;
    status: string;
    confirmations: number;
    required: number;
    explorerUrl?: string;
    isLate: boolean;
  }[];
  deposit: { address: string; uri: string } | null;
}

export async function loadCheckoutStatus(chargeId: string, now = new Date()): Promise<CheckoutStatus | undefined> {
  const [charge] = await getDb().select().from(charges).where(eq(charges.id, chargeId));
  if (!charge) return undefined;
  const chain = CHAINS[charge.chain as ChainName];
  const [deposit] = await getDb().select().from(depositAddresses).where(eq(depositAddresses.chargeId, chargeId));
  const rows = await getDb().select().from(payments).where(eq(payments.chargeId, chargeId)).orderBy(asc(payments.createdAt));
  const latest = rows.some((p) => p.status === 'pending')
    ? await publicClientFor(chain.name)
        ?.getBlockNumber()
        .catch(() => undefined)
    : undefined;
  const funding = fundingOf(rows);
  const received = funding.seen;
  const due = received >= charge.totalBaseUnits ? 0n : charge.totalBaseUnits - received;
  const required = requiredConfirmations(chain.name);
  const token = tokenOfCharge(charge);
  const status: ChargeStatus = charge.status === 'pending' && charge.expiresAt <= now ? 'expired' : charge.status;
  return {
    chargeId,
    status,
    total: formatAmount(charge.totalBaseUnits, charge.tokenDecimals),
    received: formatAmount(received, charge.tokenDecimals),
    due: formatAmount(due, charge.tokenDecimals),
    symbol: charge.tokenSymbol,
    expiresAt: charge.expiresAt.toISOString(),
    successUrl: charge.successUrl,
    payments: rows.map((p) => ({
      txHash: p.txHash,
      amount: formatAmount(p.amountBaseUnits, charge.tokenDecimals),
      status: p.status,
      confirmations:
        p.status === 'confirmed'
          ? Math.max(required, latest ? confirmationsOf(p.blockNumber, latest) : required)
          : latest
            ? confirmationsOf(p.blockNumber, latest)
            : 0,
      required,
      explorerUrl: explorerTxUrl(chain, p.txHash),
      isLate: p.isLate,
    })),
    deposit: deposit
      ? { address: deposit.address, uri: paymentRequestUri(chain, charge, deposit, token, due > 0n ? due : charge.totalBaseUnits) }
      : null,
  };
}

/** The wallet link and QR payload: EIP-681 on EVM chains, a Solana Pay transfer request on Solana. */
function paymentRequestUri(
  chain: ChainInfo,
  charge: ChargeRow,
  deposit: { address: string; reference: string | null },
  token: TokenInfo | undefined,
  amountBaseUnits: bigint,
): string {
  if (chain.family === 'solana') {
    return solanaPayTransferRequest({
      recipient: deposit.address,
      amountBaseUnits,
      decimals: charge.tokenDecimals,
      splToken: token?.isNative ? undefined : charge.tokenAddress,
      references: deposit.reference ? [deposit.reference] : [],
      message: `Charge ${charge.id}`,
    });
  }
  return eip681Uri({
    chainId: chain.evmChainId!,
    to: deposit.address,
    tokenAddress: charge.tokenAddress,
    isNative: token?.isNative ?? false,
    amountBaseUnits,
  });
}
