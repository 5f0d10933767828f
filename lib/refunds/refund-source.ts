/**
 * What every refund transfer shares, whoever chose its destination (createRefund at once, claimRefund
 * when the payer claims a link): how much may go and from where, a destination that is not a trap (the
 * zero address, the deposit address, the token contract), and the wallet that pays it.
 */
import { and, eq } from 'drizzle-orm';
import { getAddress, isAddress } from 'viem';
import { CHAINS, EVM_NATIVE_TOKEN_ADDRESS, isValidAddress, type ChainFamily, type ChainName } from '@/lib/chains/registry';
import { getDb } from '@/lib/db/client';
import { charges, depositAddresses, wallets, type ChargeRow, type RefundSource } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';
import { formatAmount } from '@/lib/money';
import { depositAccount, solanaDepositSigner } from '@/lib/keyring/deposit-addresses';
import { ensureMerchantWallets } from '@/lib/keyring/create-wallets';
import { walletSigner, type ChainSigner } from '@/lib/transactions/record-chain-transfer';
import { chargeFunds, type ChargeFunds } from './charge-funds';

interface TokenLabel {
  symbol: string;
  decimals: number;
}

const formatter = (token: TokenLabel) => (units: bigint) => `${formatAmount(units < 0n ? 0n : units, token.decimals)} ${token.symbol}`;

/** Refused unless `amount` is still refundable (what the charge received minus what refunds hold). */
export function checkRefundable(funds: ChargeFunds, amount: bigint, token: TokenLabel): void {
  const fmt = formatter(token);
  if (funds.refundable <= 0n) {
    throw new AppError(
      'refund_exceeds_refundable',
      `Nothing of this charge is left to refund (received ${fmt(funds.received)}, refunded ${fmt(funds.refunded)}).`,
      { param: 'amount' },
    );
  }
  if (amount > funds.refundable) {
    throw new AppError(
      'refund_exceeds_refundable',
      `At most ${fmt(funds.refundable)} of this charge can be refunded (received ${fmt(funds.received)}, refunded ${fmt(funds.refunded)}).`,
      { param: 'amount' },
    );
  }
}

/**
 * Where a refund of `amount` is paid from: the deposit address if it holds it, else the merchant wallet;
 * and how much of a deposit refund draws on late funds (first: they are never swept, N11).
 */
export function refundSourceOf(funds: ChargeFunds, amount: bigint, token: TokenLabel): { source: RefundSource; late: bigint } {
  const fmt = formatter(token);
  if (amount <= funds.atDeposit) {
    const lateLeft = funds.lateAtDeposit > 0n ? funds.lateAtDeposit : 0n;
    return { source: 'deposit_address', late: amount < lateLeft ? amount : lateLeft };
  }
  // Funds still on their way to the merchant wallet (its sweep in flight) count: the engine sends the refund once they land.
  if (amount <= funds.inMerchantWallet + funds.onTheWayToMerchantWallet) return { source: 'merchant_wallet', late: 0n };
  throw new AppError(
    'refund_not_possible',
    funds.leftTheService > 0n
      ? `${fmt(funds.leftTheService)} of this charge went to its toAddress (a direct transfer or deliver-to-wallet charge) and is no longer held by Chargeport; at most ${fmt(funds.atDeposit + funds.inMerchantWallet)} can be refunded here. Refund the rest from the wallet that received it.`
      : `At most ${fmt(funds.atDeposit > funds.inMerchantWallet ? funds.atDeposit : funds.inMerchantWallet)} can be refunded in one refund now.`,
    { param: 'amount' },
  );
}

/** Solana's System Program: the "zero address" of Solana (lamports sent there are lost). */
const SOLANA_SYSTEM_PROGRAM = '11111111111111111111111111111111';

const familyOf = (charge: ChargeRow): ChainFamily => CHAINS[charge.chain as ChainName].family;

/** An address a refund may be sent to (EVM: checksummed; Solana: base58 as given), or a 422 that says why not. */
export function refundAddressOf(raw: string, charge: ChargeRow, funds: ChargeFunds, param: string): string {
  if (familyOf(charge) === 'solana') return solanaRefundAddressOf(raw.trim(), charge, funds, param);
  if (!isAddress(raw.trim(), { strict: false })) {
    throw new AppError('invalid_address', `${param} is not an EVM address (0x followed by 40 hexadecimal characters).`, { param });
  }
  const address = getAddress(raw.trim());
  if (address === EVM_NATIVE_TOKEN_ADDRESS)
    throw new AppError('invalid_address', 'That is the zero address: anything sent there is lost.', { param });
  if (funds.depositAddress && address === getAddress(funds.depositAddress)) {
    throw new AppError('invalid_address', 'That is the charge’s own deposit address. Give the payer’s address.', { param });
  }
  if (address === getAddress(charge.tokenAddress) && charge.tokenAddress !== EVM_NATIVE_TOKEN_ADDRESS) {
    throw new AppError('invalid_address', 'That is the token contract itself: tokens sent there are lost.', { param });
  }
  return address;
}

function solanaRefundAddressOf(address: string, charge: ChargeRow, funds: ChargeFunds, param: string): string {
  if (!isValidAddress('solana', address)) {
    throw new AppError('invalid_address', `${param} is not a Solana address (32 to 44 base58 characters).`, { param });
  }
  if (address === SOLANA_SYSTEM_PROGRAM)
    throw new AppError('invalid_address', 'That is the System Program: anything sent there is lost.', { param });
  if (address === funds.depositAddress) {
    throw new AppError('invalid_address', 'That is the charge’s own deposit address. Give the payer’s address.', { param });
  }
  if (address === charge.tokenAddress) {
    throw new AppError('invalid_address', 'That is the token’s mint itself: give the payer’s wallet address.', { param });
  }
  return address;
}

/** The wallet a refund is paid from, and how to sign for it (opened only inside the recording transaction). */
export async function refundSourceWallet(
  charge: ChargeRow,
  source: RefundSource,
  funds: ChargeFunds,
): Promise<{ address: string; signer: () => Promise<ChainSigner> }> {
  const family = familyOf(charge);
  if (source === 'deposit_address') {
    const [deposit] = await getDb().select().from(depositAddresses).where(eq(depositAddresses.chargeId, charge.id));
    if (family === 'solana') {
      const signer = await solanaDepositSigner(deposit!.derivationIndex);
      if (signer.address !== funds.depositAddress) throw new AppError('internal_error', 'The deposit key does not match its address.');
      return { address: signer.address, signer: async () => signer };
    }
    const account = depositAccount(deposit!.derivationIndex);
    if (getAddress(funds.depositAddress!) !== account.address)
      throw new AppError('internal_error', 'The deposit key does not match its address.');
    return { address: account.address, signer: async () => account };
  }
  const wallet = (await ensureMerchantWallets(getDb(), charge.merchantId)).find((w) => w.family === family)!;
  return {
    address: family === 'evm' ? getAddress(wallet.address) : wallet.address,
    signer: async () => {
      const [sealed] = await getDb().select().from(wallets).where(eq(wallets.id, wallet.id));
      return walletSigner(sealed!);
    },
  };
}

/** The charge's senders that are its payer: checksummed on EVM, as recorded on Solana. */
export function payerAddresses(funds: ChargeFunds, family: ChainFamily = 'evm'): string[] {
  if (family === 'solana') return funds.payers.filter((p) => isValidAddress('solana', p));
  return funds.payers.filter((p) => isAddress(p, { strict: false })).map((p) => getAddress(p));
}

/** `address` in the form payerAddresses gives (undefined when it is no address of the family). */
export function canonicalAddress(family: ChainFamily, address: string): string | undefined {
  const raw = address.trim();
  if (family === 'solana') return isValidAddress('solana', raw) ? raw : undefined;
  return isAddress(raw, { strict: false }) ? getAddress(raw) : undefined;
}

/** Whether `address` sent a confirmed payment of the charge as its payer (the merchant's and mode's charge). */
export async function isPayerOfCharge(
  input: { merchantId: string; mode: 'test' | 'live'; chargeId: string },
  address: string,
): Promise<boolean> {
  const [charge] = await getDb()
    .select()
    .from(charges)
    .where(and(eq(charges.id, input.chargeId), eq(charges.merchantId, input.merchantId), eq(charges.mode, input.mode)));
  if (!charge) return false;
  const wanted = canonicalAddress(familyOf(charge), address);
  if (!wanted) return false;
  return payerAddresses(await chargeFunds(getDb(), charge), familyOf(charge)).includes(wanted);
}
