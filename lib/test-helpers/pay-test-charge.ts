/**
 * payTestCharge — the test helper that pays a test charge on its test network, so a merchant's own CI
 * can drive a charge to `succeeded` and receive the real webhooks:
 *
 *  - on only where TEST_HELPERS_ENABLED (default: outside production) → else 403 forbidden;
 *  - test keys only (a production key → 403 test_key_required), and the key's own charges (others → 404);
 *  - the charge must still take payments (pending, or processing with something due, before expiry,
 *    nothing in flight) → else 409 charge_not_payable;
 *  - it pays what is still due, or `amount`, from a sandbox payer: on a local development chain
 *    (LOCAL_CHAINS) anvil's demo payer; on a real EVM test network the wallet of TEST_HELPERS_PAYER_KEY,
 *    else 503 service_unavailable. Solana devnet is not supported (503, the message says how to pay);
 *  - it sends a real transfer to the charge's deposit address and waits for it to be mined. Nothing else:
 *    the chain watcher credits it like any payment, so the charge moves and its webhooks go out as in
 *    production.
 *
 * The payer is a stand-in for the buyer's own wallet, not a service wallet, so it signs here and not
 * through the transaction engine (lib/transactions/), which moves only the service's funds.
 */
import 'server-only';
import { createPublicClient, createWalletClient, defineChain, erc20Abi, http, type Account, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { ApiContext } from '@/lib/context';
import { CHAINS, nativeToken, type ChainInfo, type ChainName } from '@/lib/chains/registry';
import { tokenOfCharge } from '@/lib/charges/charge-token';
import { getCharge } from '@/lib/charges/get-charge';
import { env, rpcUrl } from '@/lib/env';
import { AppError } from '@/lib/errors';
import { localDemoPayerAccount } from '@/lib/chains/local-accounts';
import { log } from '@/lib/log';
import { formatAmount, parseAmount } from '@/lib/money';
import { loadCheckoutStatus } from '@/lib/payments/checkout-status';
import type { PayTestChargeBody, TestPaymentResource } from './schemas';

const RECEIPT_TIMEOUT_MS = 60_000;

/** One transfer at a time per chain from this process: parallel sends from one payer would take the same nonce. */
const chainQueues = new Map<ChainName, Promise<unknown>>();
function serialised<T>(chain: ChainName, task: () => Promise<T>): Promise<T> {
  const next = (chainQueues.get(chain) ?? Promise.resolve()).catch(() => {}).then(task);
  chainQueues.set(chain, next);
  return next;
}

export async function payTestCharge({
  ctx,
  chargeId,
  body,
}: {
  ctx: ApiContext;
  chargeId: string;
  body: PayTestChargeBody;
}): Promise<TestPaymentResource> {
  if (!env().TEST_HELPERS_ENABLED) {
    throw new AppError(
      'forbidden',
      'Test helpers are turned off on this server (the operator sets TEST_HELPERS_ENABLED=true to offer them).',
    );
  }
  if (ctx.apiKey.mode !== 'test') {
    throw new AppError(
      'test_key_required',
      'Test helpers work with test API keys (cp_test_…) only: they make test-network payments, never live ones.',
    );
  }
  const { charge } = await getCharge({ ctx, chargeId });
  const status = await loadCheckoutStatus(charge.id);
  if (!status?.payable || !status.deposit) {
    throw new AppError(
      'charge_not_payable',
      `Charge ${charge.id} takes no payment now (status ${status?.status ?? charge.status}${status?.inFlight ? ', a payment is in flight' : ''}${status && status.due === '0' ? ', nothing is due' : ''}).`,
      { param: 'chargeId' },
    );
  }
  const token = tokenOfCharge(charge);
  const chain = CHAINS[charge.chain as ChainName];
  const baseUnits =
    body.amount === undefined ? parseDue(status.due, charge.tokenDecimals) : requireAmount(body.amount, charge.tokenDecimals, token.symbol);
  const payer = sandboxPayer(chain);
  const url = rpcUrl(chain.name);
  if (!url) throw new AppError('service_unavailable', `${chain.name} has no RPC URL on this server.`);

  const viemChain = defineChain({
    id: chain.evmChainId!,
    name: chain.displayName,
    nativeCurrency: { name: nativeToken(chain).name, symbol: nativeToken(chain).symbol, decimals: 18 },
    rpcUrls: { default: { http: [url] } },
  });
  const transport = http(url, { timeout: 15_000 });
  const publicClient = createPublicClient({ chain: viemChain, transport });
  const wallet = createWalletClient({ chain: viemChain, transport, account: payer });
  const to = status.deposit.address as Address;

  const txHash = await serialised(chain.name, async (): Promise<Hex> => {
    try {
      const hash = token.isNative
        ? await wallet.sendTransaction({ to, value: baseUnits })
        : await wallet.writeContract({ address: token.address as Address, abi: erc20Abi, functionName: 'transfer', args: [to, baseUnits] });
      const receipt = await publicClient.waitForTransactionReceipt({ hash, timeout: RECEIPT_TIMEOUT_MS });
      if (receipt.status !== 'success') throw new Error(`transaction ${hash} reverted`);
      return hash;
    } catch (error) {
      log.warn('test helper payment failed', { chargeId: charge.id, chain: chain.name, error });
      throw new AppError(
        'chain_unavailable',
        `The test payment on ${chain.name} did not go through (${error instanceof Error ? error.message.split('\n')[0] : 'unknown error'}). Check that the sandbox payer ${payer.address} holds enough ${token.symbol}, and retry.`,
      );
    }
  });
  return {
    object: 'test_payment',
    chargeId: charge.id,
    chain: chain.name,
    txHash,
    fromAddress: payer.address,
    toAddress: to,
    amount: formatAmount(baseUnits, charge.tokenDecimals),
    amountBaseUnits: baseUnits.toString(),
  };
}

/** The funded stand-in buyer of this test network, or 503 saying what to configure. */
function sandboxPayer(chain: ChainInfo): Account {
  if (chain.family !== 'evm' || chain.evmChainId === undefined) {
    throw new AppError(
      'service_unavailable',
      `Test-helper payments are not available on ${chain.name}: pay the deposit address from a ${chain.displayName} wallet instead.`,
    );
  }
  const config = env();
  // Test charges run on test networks only; the configured key is never used on anything else.
  if (config.LOCAL_CHAINS.includes(chain.name)) return localDemoPayerAccount;
  if (!chain.isTestnet || !config.TEST_HELPERS_PAYER_KEY) {
    throw new AppError(
      'service_unavailable',
      `No funded sandbox payer for ${chain.name} on this server: the operator sets TEST_HELPERS_PAYER_KEY (a funded ${chain.displayName} wallet) to enable test-helper payments there.`,
    );
  }
  return privateKeyToAccount(config.TEST_HELPERS_PAYER_KEY as Hex);
}

function parseDue(due: string, decimals: number): bigint {
  const parsed = parseAmount(due, decimals);
  if (!parsed.ok) throw new Error(`unexpected due amount ${due}`);
  return parsed.baseUnits;
}

function requireAmount(text: string, decimals: number, symbol: string): bigint {
  const parsed = parseAmount(text, decimals);
  if (parsed.ok) return parsed.baseUnits;
  throw new AppError(
    'invalid_amount',
    parsed.reason === 'too_many_decimals'
      ? `amount ${text} has more than ${decimals} fractional digits, the most ${symbol} allows.`
      : `amount must be a positive decimal number of ${symbol}.`,
    { param: 'amount' },
  );
}
