/**
 * Withdraw from the merchant's service wallet to an external address (the Balances tab).
 *
 *  - Owners only ('funds.withdraw'), confirmed with the owner's own PIN (attempt-limited like every
 *    PIN check), on a network of the dashboard's mode (test networks in test mode).
 *  - Exact amounts: parsed with the token's decimals, checked against the on-chain balance.
 *  - The gas tank covers the fee if the wallet holds no native coin (recorded as platform cost).
 *  - Like every transfer the service sends, it is signed and recorded before it is broadcast, and the
 *    reconciler follows it; the withdrawal is audited in the same transaction.
 *  - EVM networks only for now (the merchant's Solana wallet receives Solana sweeps).
 */
import { and, eq } from 'drizzle-orm';
import { getAddress, isAddress, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { verifyPin } from '@/lib/accounts/pin';
import { recordAudit } from '@/lib/audit/record-audit';
import { publicClientFor } from '@/lib/chains/clients';
import { CHAINS, type ChainName } from '@/lib/chains/registry';
import { getDb } from '@/lib/db/client';
import { wallets, type ApiKeyMode } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';
import { formatAmount, parseAmount } from '@/lib/money';
import { topUpGasIfShort } from '@/lib/payments/gas-tank';
import { broadcastTransfer, planTransfer, signAndRecordTransfer } from '@/lib/payments/outbound-transfers';
import { ensureMerchantWallets } from '@/lib/wallets/create-wallets';
import { openWalletKey } from '@/lib/wallets/envelope';
import { tokenBalance } from '@/lib/wallets/token-balance';
import { authorizeMember } from './permissions';
import { chainsOfMode } from './tokens';

export interface WithdrawalInput {
  userId: string;
  merchantId: string;
  mode: ApiKeyMode;
  chain: string;
  tokenAddress: string;
  amount: string;
  toAddress: string;
  pin: string;
  ip?: string | null;
}

export async function withdrawFromMerchantWallet(input: WithdrawalInput): Promise<{ transferId: string; txHash: string }> {
  const chain = chainsOfMode(input.mode).find((name) => name === input.chain && CHAINS[name].family === 'evm') as ChainName | undefined;
  if (!chain)
    throw new AppError(
      'unsupported_chain',
      `Withdraw on an EVM network of ${input.mode} mode: ${chainsOfMode(input.mode)
        .filter((c) => CHAINS[c].family === 'evm')
        .join(', ')}.`,
      { param: 'chain' },
    );
  const token = CHAINS[chain].tokens.find((t) => t.address.toLowerCase() === input.tokenAddress.toLowerCase());
  if (!token) throw new AppError('unsupported_token', `No token ${input.tokenAddress} on ${chain}.`, { param: 'tokenAddress' });
  if (!isAddress(input.toAddress.trim(), { strict: false })) {
    throw new AppError('invalid_address', 'The destination is not an EVM address (0x followed by 40 hex digits).', { param: 'toAddress' });
  }
  const toAddress = getAddress(input.toAddress.trim());
  const amount = parseAmount(input.amount, token.decimals);
  if (!amount.ok)
    throw new AppError('invalid_amount', `Enter a positive amount of ${token.symbol} with at most ${token.decimals} decimals.`, {
      param: 'amount',
    });
  const client = publicClientFor(chain);
  if (!client) throw new AppError('chain_unavailable', `${CHAINS[chain].displayName} is not reachable right now. Try again shortly.`);

  await authorizeMember(getDb(), { ...input, permission: 'funds.withdraw' });
  await verifyPin({ userId: input.userId, pin: input.pin });

  const transfer = await getDb().transaction(async (tx) => {
    const actor = await authorizeMember(tx, { ...input, permission: 'funds.withdraw' });
    await ensureMerchantWallets(tx, input.merchantId);
    const [wallet] = await tx
      .select()
      .from(wallets)
      .where(and(eq(wallets.merchantId, input.merchantId), eq(wallets.family, 'evm')));
    const from = wallet!.address as Hex;
    const balance = await tokenBalance(chain, token, from);
    if (balance === undefined)
      throw new AppError('chain_unavailable', `${CHAINS[chain].displayName} is not reachable right now. Try again shortly.`);
    if (balance < amount.baseUnits) {
      throw new AppError(
        'insufficient_balance',
        `The wallet holds ${formatAmount(balance, token.decimals)} ${token.symbol} on ${CHAINS[chain].displayName}.`,
        { param: 'amount' },
      );
    }
    const plan = await planTransfer(client, { from, recipient: toAddress, token, amount: amount.baseUnits });
    const gasTopUp = await topUpGasIfShort(tx, {
      chain,
      client,
      wallet: from,
      needed: plan.maxGasCost,
      reserved: token.isNative ? amount.baseUnits : 0n,
      chargeId: null,
    });
    const key = openWalletKey(wallet!);
    const account = privateKeyToAccount(`0x${key.toString('hex')}`);
    key.fill(0);
    const recorded = await signAndRecordTransfer(tx, {
      purpose: 'withdrawal',
      chargeId: null,
      chain,
      account,
      recipient: toAddress,
      token,
      amount: amount.baseUnits,
      plan,
      client,
    });
    await recordAudit(tx, {
      actor,
      action: 'funds.withdraw',
      targetId: recorded.id,
      mode: input.mode,
      data: { chain, token: token.symbol, amount: formatAmount(amount.baseUnits, token.decimals), toAddress, txHash: recorded.txHash },
      ip: input.ip,
    });
    return { recorded, gasTopUpId: gasTopUp?.id, gasTopUpHash: gasTopUp?.txHash };
  });

  if (transfer.gasTopUpId) {
    await broadcastTransfer(transfer.gasTopUpId);
    await client.waitForTransactionReceipt({ hash: transfer.gasTopUpHash as Hex, timeout: 20_000 }).catch(() => undefined);
  }
  await broadcastTransfer(transfer.recorded.id);
  return { transferId: transfer.recorded.id, txHash: transfer.recorded.txHash };
}
