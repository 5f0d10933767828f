/**
 * Withdraw from the merchant's service wallet to an external address (the Balances tab).
 *
 *  - Owners only ('funds.withdraw'), confirmed with the owner's own PIN or a passkey (step-up; PINs
 *    attempt-limited like every PIN check), on a network of the dashboard's mode (test networks in
 *    test mode). For a verified merchant the owner must have two-factor sign-in turned on; an owner
 *    added by another member waits OWNER_WITHDRAWAL_HOLD_HOURS (withdrawal-hold.ts). Every owner is e-mailed.
 *  - Any registry token of the chain, or a custom ERC-20 the merchant added there (its sweeps land in this
 *    wallet; disabled since or not, the funds are the merchant's), with the same checks.
 *  - Exact amounts: parsed with the token's decimals, checked against the on-chain balance.
 *  - The gas tank covers the fee if the wallet holds no native coin (recorded as platform cost; where smart
 *    accounts are on, ADR 0035, it relays the wallet's own call instead of topping it up); on
 *    Solana it always pays, as the transaction's fee payer, so the Solana wallet needs no SOL for fees.
 *  - Like every transfer the service sends, it is signed and recorded before it is broadcast, and the
 *    reconciler follows it; the withdrawal is audited in the same transaction.
 *  - Every network of the mode: from the merchant's EVM wallet, or its Solana wallet (where Solana sweeps land).
 */
import { and, eq } from 'drizzle-orm';
import { verifyStepUp } from '@/lib/accounts/step-up';
import { requireSecondFactor } from '@/lib/accounts/two-factor/second-factor';
import { recordAudit } from '@/lib/audit/record-audit';
import { CHAINS, findToken, isValidAddress, normalizeAddress, type ChainName, type TokenInfo } from '@/lib/chains/registry';
import type { SolanaRpcOptions } from '@/lib/chains/solana-rpc';
import { getDb } from '@/lib/db/client';
import { merchantTokens, wallets, type ApiKeyMode } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';
import { isIdOf, newId } from '@/lib/ids';
import { formatAmount, parseAmount } from '@/lib/money';
import { submitTransfer } from '@/lib/transactions/broadcast-transfer';
import { prepareChainTransfer } from '@/lib/transactions/prepare-chain-transfer';
import { recordChainTransfer, walletSigner } from '@/lib/transactions/record-chain-transfer';
import { ensureMerchantWallets } from '@/lib/keyring/create-wallets';
import { notifyOwners } from './notify-owners';
import { requireNoWithdrawalHold } from './withdrawal-hold';
import { authorizeMember } from './permissions';
import { chainsOfMode } from './tokens';

/** The id a withdrawal form carries: submitting it twice (double click, retry) is one withdrawal. */
export function newWithdrawalId(): string {
  return newId('withdrawal');
}

export interface WithdrawalInput {
  userId: string;
  merchantId: string;
  mode: ApiKeyMode;
  chain: string;
  tokenAddress: string;
  amount: string;
  toAddress: string;
  pin?: string;
  /** A passkey assertion (JSON) instead of the PIN. */
  passkeyResponse?: string;
  /** Idempotency id from the form (newWithdrawalId); a retry with the same id returns the first withdrawal. */
  withdrawalId?: string;
  ip?: string | null;
}

export async function withdrawFromMerchantWallet(
  input: WithdrawalInput,
  options: SolanaRpcOptions = {},
): Promise<{ transferId: string; txHash: string }> {
  const chain = chainsOfMode(input.mode).find((name) => name === input.chain) as ChainName | undefined;
  if (!chain)
    throw new AppError('unsupported_chain', `Withdraw on a network of ${input.mode} mode: ${chainsOfMode(input.mode).join(', ')}.`, {
      param: 'chain',
    });
  const family = CHAINS[chain].family;
  // EVM: a registry token or a custom ERC-20 of the merchant's; Solana: a registry token (mints are case-sensitive).
  const token =
    family === 'evm' ? await withdrawableToken(input.merchantId, chain, input.tokenAddress) : findToken(CHAINS[chain], input.tokenAddress);
  if (!token)
    throw new AppError(
      'unsupported_token',
      family === 'evm'
        ? `No token ${input.tokenAddress} on ${chain}, nor a custom token of yours there.`
        : `No token ${input.tokenAddress} on ${chain}.`,
      { param: 'tokenAddress' },
    );
  const rawTo = input.toAddress.trim();
  // EVM: any checksum (or none) is accepted here, as before; Solana addresses are case-sensitive base58.
  if (family === 'evm' ? !isValidAddress('evm', rawTo.toLowerCase()) : !isValidAddress('solana', rawTo)) {
    throw new AppError(
      'invalid_address',
      family === 'evm'
        ? 'The destination is not an EVM address (0x followed by 40 hex digits).'
        : 'The destination is not a Solana address (32 to 44 base58 characters).',
      { param: 'toAddress' },
    );
  }
  const toAddress = normalizeAddress(family, rawTo);
  const amount = parseAmount(input.amount, token.decimals);
  if (!amount.ok)
    throw new AppError('invalid_amount', `Enter a positive amount of ${token.symbol} with at most ${token.decimals} decimals.`, {
      param: 'amount',
    });
  if (input.withdrawalId !== undefined && !isIdOf('withdrawal', input.withdrawalId)) {
    throw new AppError('invalid_request', 'This withdrawal form is out of date: reload the page and try again.', { param: 'withdrawalId' });
  }
  const withdrawalId = input.withdrawalId ?? newWithdrawalId();

  const member = await authorizeMember(getDb(), { ...input, permission: 'funds.withdraw' });
  const attempt = { action: 'withdrawal', merchantId: input.merchantId, mode: input.mode, ip: input.ip } as const;
  if (member.merchant.verifiedAt) await requireSecondFactor(input.userId, 'withdraw', { mode: input.mode, attempt });
  await requireNoWithdrawalHold(getDb(), input);
  await verifyStepUp({
    userId: input.userId,
    proof: { pin: input.pin, passkeyResponse: input.passkeyResponse },
    mode: input.mode,
    attempt,
  });

  const wallet = (await ensureMerchantWallets(getDb(), input.merchantId)).find((w) => w.family === family)!;
  const prepared = await prepareChainTransfer(
    { chain, from: wallet.address, spend: { token, amount: amount.baseUnits, recipient: toAddress }, gasSponsored: true },
    options,
  );

  const recorded = await getDb().transaction(async (tx) => {
    const actor = await authorizeMember(tx, { ...input, permission: 'funds.withdraw' });
    const [sealed] = await tx
      .select()
      .from(wallets)
      .where(and(eq(wallets.merchantId, input.merchantId), eq(wallets.family, family)));
    const result = await recordChainTransfer(tx, {
      prepared,
      signer: () => walletSigner(sealed!),
      purpose: 'withdrawal',
      authorization: {
        authority: { kind: 'owner_step_up', userId: input.userId, merchantId: input.merchantId },
        destination: { class: 'owner_approved', address: toAddress },
      },
      gasSponsor: { merchantId: input.merchantId },
      idempotency: { scope: `withdrawal:${input.merchantId}`, key: withdrawalId },
      senderLabel: 'The wallet',
    });
    if (!result.replayed) {
      await recordAudit(tx, {
        actor,
        action: 'funds.withdraw',
        targetId: result.transfer.id,
        mode: input.mode,
        data: {
          chain,
          token: token.symbol,
          amount: formatAmount(amount.baseUnits, token.decimals),
          toAddress,
          txHash: result.transfer.txHash,
        },
        ip: input.ip,
      });
    }
    return result;
  });

  if (!recorded.replayed) {
    await submitTransfer(recorded, options);
    await notifyOwners({
      merchantId: input.merchantId,
      actorUserId: input.userId,
      ip: input.ip,
      subject: `withdrawal of ${formatAmount(amount.baseUnits, token.decimals)} ${token.symbol}`,
      text: `${formatAmount(amount.baseUnits, token.decimals)} ${token.symbol} (${input.mode} mode) were withdrawn on ${chain} to ${toAddress}.
Transaction: ${recorded.transfer.txHash}`,
    });
  }
  return { transferId: recorded.transfer.id, txHash: recorded.transfer.txHash };
}

/** A registry token of the chain, else one of the merchant's custom ERC-20s there (merchant_tokens, lower-case address). */
async function withdrawableToken(merchantId: string, chain: ChainName, tokenAddress: string): Promise<TokenInfo | undefined> {
  const address = tokenAddress.trim().toLowerCase();
  const registry = CHAINS[chain].tokens.find((t) => t.address.toLowerCase() === address);
  if (registry) return registry;
  const [custom] = await getDb()
    .select()
    .from(merchantTokens)
    .where(
      and(
        eq(merchantTokens.merchantId, merchantId),
        eq(merchantTokens.chain, chain),
        eq(merchantTokens.address, address),
        eq(merchantTokens.isCustom, true),
      ),
    );
  if (!custom) return undefined;
  return {
    symbol: custom.symbol,
    name: custom.name,
    address: normalizeAddress('evm', custom.address),
    decimals: custom.decimals,
    isNative: false,
  };
}
