/**
 * Returning funds from a deposit address that no refund covers — a token the charge is not in (USDT sent to a
 * USDC charge's address), USDC left there after a swap, any ERC-20 or native coin — to an address support
 * names (`npm run admin -- recover-deposit request|approve`, docs/operations.md "Recovering a deposit"):
 *
 *  - one operator requests it (deposit, token, amount or `all`, destination, reason); a second, different
 *    operator approves it. The requester cannot approve their own request. Both steps are audit rows of the
 *    charge's merchant (its owners read them), in the transaction of the step.
 *  - on approval the transfer goes through the transaction engine like every other: recorded (signed,
 *    purpose `recovery`) before it is broadcast, in the approval's transaction, and the transfer gate checks
 *    the request row itself (approved by someone else than its requester, this deposit, token, amount and
 *    destination: lib/transactions/transfer-policy.ts), so nothing else can move funds this way.
 *  - never the charge's own token: that is the merchant's (swept) or the payer's (refunded), in the books.
 *  - the gas tank pays the fee when the deposit holds no native coin (charged to the merchant's daily cap).
 *  - Solana deposits too (stray SOL or registry SPL tokens the slow pass found, ./audit-solana-deposits.ts):
 *    the same two steps and gate, the transfer through the engine's Solana path (signed by the deposit's key,
 *    the tank the fee payer). Mints outside the registry are not recovered this way on Solana.
 *
 * Operator identity is the name given with --operator (an e-mail); whoever runs the CLI holds the database's
 * credentials, so the rule is procedural: it makes a single person's mistake or shortcut visible and refused,
 * not a compromised operator host. See docs/security.md.
 */
import { and, desc, eq, sql } from 'drizzle-orm';
import { address as solanaAddress, isAddress as isSolanaAddress } from '@solana/kit';
import { erc20Abi, getAddress, isAddress, type Hex } from 'viem';
import { publicClientFor } from '@/lib/chains/clients';
import { CHAIN_NAMES, CHAINS, EVM_NATIVE_TOKEN_ADDRESS, type ChainName, type TokenInfo } from '@/lib/chains/registry';
import { resolveSolanaRpc, type SolanaRpcOptions } from '@/lib/chains/solana-rpc';
import { getDb, type DbOrTx } from '@/lib/db/client';
import {
  auditLog,
  charges,
  depositAddresses,
  depositRecoveries,
  outboundTransfers,
  strayDeposits,
  type DepositRecoveryStatus,
} from '@/lib/db/schema';
import { AppError } from '@/lib/errors';
import { newId } from '@/lib/ids';
import { depositAccount, solanaDepositSigner } from '@/lib/keyring/deposit-addresses';
import { formatAmount, parseAmount } from '@/lib/money';
import { submitTransfer } from '@/lib/transactions/broadcast-transfer';
import { prepareChainTransfer } from '@/lib/transactions/prepare-chain-transfer';
import { recordChainTransfer } from '@/lib/transactions/record-chain-transfer';
import { balanceOf as solanaBalanceOf } from './reconcile-solana';

export interface DepositRecovery {
  id: string;
  chain: string;
  chargeId: string;
  fromAddress: string;
  tokenAddress: string;
  symbol: string;
  amount: string;
  toAddress: string;
  reason: string;
  requestedBy: string;
  approvedBy: string | null;
  status: DepositRecoveryStatus;
  transferId: string | null;
  txHash?: string;
}

/** Step 1: an operator asks to move `amount` (or `all`) of `token` from a deposit address to `to`. */
export async function requestDepositRecovery(
  input: {
    chain: string;
    deposit: string;
    token: string;
    amount: string;
    to: string;
    operator: string;
    reason: string;
  },
  options: SolanaRpcOptions = {},
): Promise<DepositRecovery> {
  const chain = recoveryChain(input.chain);
  const isSolana = CHAINS[chain].family === 'solana';
  const operator = operatorName(input.operator);
  const reason = input.reason.trim();
  if (!reason)
    throw new AppError('invalid_request', 'Say why (--reason): the audit row and the second operator read it.', { param: 'reason' });
  if (isSolana) {
    if (!isSolanaAddress(input.deposit.trim()))
      throw new AppError('invalid_address', 'The deposit is not a Solana address.', { param: 'deposit' });
    if (!isSolanaAddress(input.to.trim()))
      throw new AppError('invalid_address', 'The destination is not a Solana address (base58, 32 bytes).', { param: 'to' });
  } else {
    if (!isAddress(input.deposit, { strict: false }))
      throw new AppError('invalid_address', 'The deposit is not an EVM address.', { param: 'deposit' });
    if (!isAddress(input.to, { strict: false }) || /^0x0{40}$/i.test(input.to))
      throw new AppError('invalid_address', 'The destination is not an EVM address (0x followed by 40 hex digits, not zero).', {
        param: 'to',
      });
  }
  const canonical = (raw: string) => (isSolana ? raw.trim() : getAddress(raw));
  const [deposit] = await getDb()
    .select({
      chargeId: depositAddresses.chargeId,
      address: depositAddresses.address,
      merchantId: charges.merchantId,
      mode: charges.mode,
      chargeToken: charges.tokenAddress,
    })
    .from(depositAddresses)
    .innerJoin(charges, eq(charges.id, depositAddresses.chargeId))
    .where(and(eq(depositAddresses.chain, chain), eq(depositAddresses.address, canonical(input.deposit))))
    // A reused address (ADR 0038): its latest lease, the charge whose books a stray deposit sits in.
    .orderBy(desc(depositAddresses.createdAt))
    .limit(1);
  if (!deposit) throw new AppError('not_found', `${input.deposit} is no deposit address on ${chain}.`, { param: 'deposit' });
  const token = await tokenInfo(chain, input.token);
  // The charge's own token is the books' (owed to the merchant, or refundable to the payer through a refund): never this path.
  if (tokenKey(chain, token.address) === tokenKey(chain, deposit.chargeToken))
    throw new AppError('invalid_request', `${token.symbol} is the charge's own token: return it with a refund of ${deposit.chargeId}.`, {
      param: 'token',
    });
  let amount: bigint;
  if (input.amount.trim().toLowerCase() === 'all') {
    amount = await balanceOf(chain, token, deposit.address, options);
    if (amount === 0n)
      throw new AppError('invalid_amount', `${deposit.address} holds no ${token.symbol} on ${chain}.`, { param: 'amount' });
  } else {
    const parsed = parseAmount(input.amount, token.decimals);
    if (!parsed.ok)
      throw new AppError('invalid_amount', `Give a positive amount of ${token.symbol} with at most ${token.decimals} decimals, or all.`, {
        param: 'amount',
      });
    amount = parsed.baseUnits;
  }

  return getDb().transaction(async (tx) => {
    const [row] = await tx
      .insert(depositRecoveries)
      .values({
        id: newId('depositRecovery'),
        chain,
        chargeId: deposit.chargeId,
        fromAddress: deposit.address,
        tokenAddress: tokenKey(chain, token.address),
        amountBaseUnits: amount,
        toAddress: canonical(input.to),
        reason,
        requestedBy: operator,
      })
      .returning();
    await audit(tx, {
      merchantId: deposit.merchantId,
      mode: deposit.mode,
      action: 'deposit.recovery_requested',
      operator,
      row: row!,
      token,
    });
    return describe(row!, token);
  });
}

/** Step 2: a second operator approves; the transfer is recorded, then broadcast. The requester is refused. */
export async function approveDepositRecovery(
  input: { recoveryId: string; operator: string },
  options: SolanaRpcOptions = {},
): Promise<DepositRecovery> {
  const operator = operatorName(input.operator);
  const [request] = await getDb().select().from(depositRecoveries).where(eq(depositRecoveries.id, input.recoveryId));
  if (!request) throw new AppError('not_found', `No recovery request ${input.recoveryId}.`, { param: 'recoveryId' });
  if (request.status !== 'requested') throw new AppError('invalid_request', `Recovery ${request.id} was already approved and sent.`);
  if (sameOperator(request.requestedBy, operator))
    throw new AppError('forbidden', `${operator} requested this recovery: a second operator must approve it.`, { param: 'operator' });
  const chain = recoveryChain(request.chain);
  const token = await tokenInfo(chain, request.tokenAddress);
  const [deposit] = await getDb()
    .select({ index: depositAddresses.derivationIndex, merchantId: charges.merchantId, mode: charges.mode })
    .from(depositAddresses)
    .innerJoin(charges, eq(charges.id, depositAddresses.chargeId))
    .where(eq(depositAddresses.chargeId, request.chargeId));
  const prepared = await prepareChainTransfer(
    {
      chain,
      from: request.fromAddress,
      spend: { token, amount: request.amountBaseUnits, recipient: request.toAddress },
      gasSponsored: true,
    },
    options,
  );
  const isSolana = CHAINS[chain].family === 'solana';

  const recorded = await getDb().transaction(async (tx) => {
    // Two approvals at once: the first takes the row, the second finds it approved.
    const [locked] = await tx.select().from(depositRecoveries).where(eq(depositRecoveries.id, request.id)).for('update');
    if (locked!.status !== 'requested') throw new AppError('invalid_request', `Recovery ${request.id} was already approved and sent.`);
    await tx.update(depositRecoveries).set({ approvedBy: operator, approvedAt: new Date() }).where(eq(depositRecoveries.id, request.id));
    const result = await recordChainTransfer(tx, {
      prepared,
      signer: async () => (isSolana ? solanaDepositSigner(deposit!.index) : depositAccount(deposit!.index)),
      purpose: 'recovery',
      chargeId: request.chargeId,
      authorization: {
        authority: { kind: 'two_operators', recoveryId: request.id },
        destination: { class: 'recovery_address', recoveryId: request.id },
      },
      gasSponsor: { merchantId: deposit!.merchantId },
      idempotency: { scope: 'deposit-recovery', key: request.id },
      senderLabel: 'The deposit address',
    });
    const [row] = await tx
      .update(depositRecoveries)
      .set({ status: 'sent', transferId: result.transfer.id })
      .where(eq(depositRecoveries.id, request.id))
      .returning();
    await audit(tx, {
      merchantId: deposit!.merchantId,
      mode: deposit!.mode,
      action: 'deposit.recovery_approved',
      operator,
      row: row!,
      token,
      txHash: result.transfer.txHash,
    });
    return { result, row: row! };
  });
  await submitTransfer(recorded.result, options);
  return { ...describe(recorded.row, token), txHash: recorded.result.transfer.txHash };
}

export interface StrayHolding {
  chain: string;
  chargeId: string;
  address: string;
  tokenAddress: string;
  /** Base units: recorded as stray, and moved out by recoveries sent (not failed). */
  stray: bigint;
  recovered: bigint;
  /** Requests still waiting for a second operator. */
  openRequests: string[];
}

/** For support (`recover-deposit list`): stray tokens per deposit, what recoveries returned, what waits for approval. */
export async function listStrayHoldings(): Promise<StrayHolding[]> {
  const rows = await getDb().execute<{
    chain: string;
    charge_id: string;
    address: string;
    token_address: string;
    stray: string;
    recovered: string;
    open_requests: string[];
  }>(sql`
    select d.chain, d.charge_id, d.address, d.token_address, sum(d.amount_base_units)::text as stray,
           coalesce((select sum(r.amount_base_units) from ${depositRecoveries} r
                       join ${outboundTransfers} t on t.id = r.transfer_id and t.status <> 'failed'
                      where r.chain = d.chain and r.from_address = d.address and r.token_address = d.token_address), 0)::text as recovered,
           coalesce((select array_agg(r.id order by r.created_at) from ${depositRecoveries} r
                      where r.chain = d.chain and r.from_address = d.address and r.token_address = d.token_address
                        and r.status = 'requested'), '{}') as open_requests
      from ${strayDeposits} d
     group by d.chain, d.charge_id, d.address, d.token_address
     order by max(d.created_at) desc`);
  return rows.map((row) => ({
    chain: row.chain,
    chargeId: row.charge_id,
    address: row.address,
    tokenAddress: row.token_address,
    stray: BigInt(row.stray),
    recovered: BigInt(row.recovered),
    openRequests: row.open_requests,
  }));
}

function recoveryChain(name: string): ChainName {
  const chain = CHAIN_NAMES.find((c) => c === name.toUpperCase());
  if (!chain) throw new AppError('unsupported_chain', `${name} is no chain Chargeport serves.`, { param: 'chain' });
  return chain;
}

/** How a token is stored on a recovery: EVM lower-case; a Solana mint as it is (base58 is case-sensitive). */
const tokenKey = (chain: ChainName, token: string) => (CHAINS[chain].family === 'solana' ? token : token.toLowerCase());

function operatorName(raw: string): string {
  const name = raw.trim();
  if (name.length < 3) throw new AppError('invalid_request', 'Name the operator (--operator, your e-mail).', { param: 'operator' });
  return name;
}

const sameOperator = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

/** A registry token, else any ERC-20 read from the chain (a stray token can be anything). */
async function tokenInfo(chain: ChainName, raw: string): Promise<TokenInfo> {
  if (CHAINS[chain].family === 'solana') {
    const mint = CHAINS[chain].tokens.find((t) => t.address === raw.trim() || t.symbol === raw.trim().toUpperCase());
    if (!mint) throw new AppError('invalid_request', `Only the registry's tokens are recovered on ${chain}.`, { param: 'token' });
    return mint;
  }
  const address = raw.trim().toLowerCase();
  const known = CHAINS[chain].tokens.find((t) => t.address.toLowerCase() === address);
  if (known) return known;
  if (!isAddress(address, { strict: false }) || address === EVM_NATIVE_TOKEN_ADDRESS)
    throw new AppError('invalid_address', 'The token is not an EVM address.', { param: 'token' });
  const client = publicClientFor(chain);
  if (!client) throw new AppError('chain_unavailable', `${CHAINS[chain].displayName} has no RPC here.`);
  try {
    const [symbol, decimals] = await Promise.all([
      client.readContract({ address: address as Hex, abi: erc20Abi, functionName: 'symbol' }),
      client.readContract({ address: address as Hex, abi: erc20Abi, functionName: 'decimals' }),
    ]);
    return { symbol: symbol.slice(0, 16), name: symbol.slice(0, 64), address: getAddress(address), decimals, isNative: false };
  } catch {
    throw new AppError('invalid_request', `No ERC-20 at ${raw} on ${chain}.`, { param: 'token' });
  }
}

async function balanceOf(chain: ChainName, token: TokenInfo, owner: string, options: SolanaRpcOptions): Promise<bigint> {
  if (CHAINS[chain].family === 'solana') {
    const rpc = resolveSolanaRpc(chain, options);
    if (!rpc) throw new AppError('chain_unavailable', `${CHAINS[chain].displayName} has no RPC here.`);
    const read = await solanaBalanceOf(rpc, solanaAddress(owner), token.isNative ? undefined : solanaAddress(token.address), 0n);
    return read.actual;
  }
  const client = publicClientFor(chain);
  if (!client) throw new AppError('chain_unavailable', `${CHAINS[chain].displayName} has no RPC here.`);
  const address = getAddress(owner);
  if (token.isNative) return client.getBalance({ address });
  return client.readContract({ address: token.address as Hex, abi: erc20Abi, functionName: 'balanceOf', args: [address] });
}

function describe(row: typeof depositRecoveries.$inferSelect, token: TokenInfo): DepositRecovery {
  return {
    id: row.id,
    chain: row.chain,
    chargeId: row.chargeId,
    fromAddress: row.fromAddress,
    tokenAddress: row.tokenAddress,
    symbol: token.symbol,
    amount: formatAmount(row.amountBaseUnits, token.decimals),
    toAddress: row.toAddress,
    reason: row.reason,
    requestedBy: row.requestedBy,
    approvedBy: row.approvedBy,
    status: row.status,
    transferId: row.transferId,
  };
}

/** The charge's merchant's audit log (its owners see operators move funds from their deposits); no member acted, so no user. */
async function audit(
  tx: DbOrTx,
  input: {
    merchantId: string;
    mode: string;
    action: string;
    operator: string;
    row: typeof depositRecoveries.$inferSelect;
    token: TokenInfo;
    txHash?: string;
  },
): Promise<void> {
  await tx.insert(auditLog).values({
    id: newId('auditEntry'),
    merchantId: input.merchantId,
    action: input.action,
    targetId: input.row.id,
    mode: input.mode,
    data: {
      operator: input.operator,
      requestedBy: input.row.requestedBy,
      chain: input.row.chain,
      chargeId: input.row.chargeId,
      fromAddress: input.row.fromAddress,
      token: input.token.symbol,
      tokenAddress: input.row.tokenAddress,
      amount: formatAmount(input.row.amountBaseUnits, input.token.decimals),
      toAddress: input.row.toAddress,
      reason: input.row.reason,
      ...(input.txHash ? { txHash: input.txHash } : {}),
    },
  });
}
