/**
 * What can be checked of a send without the chain: the network (EVM networks from the EVM wallet, Solana
 * from the Solana wallet), the token, the recipient for the chain's family, the exact amount. One function
 * for the preview and the confirmation, so the confirmation refuses exactly what the preview refused.
 */
import { getAddress, isAddress } from 'viem';
import {
  CHAINS,
  EVM_NATIVE_TOKEN_ADDRESS,
  findToken,
  isChainName,
  isValidAddress,
  type ChainFamily,
  type ChainName,
  type TokenInfo,
} from '@/lib/chains/registry';
import { AppError } from '@/lib/errors';
import { parseAmount } from '@/lib/money';
import { sendRequestSchema, type SendRequest } from './schemas';

export interface ResolvedSend {
  chain: ChainName;
  token: TokenInfo;
  toAddress: string;
  amount: bigint;
  /** The user's wallet of the chain's family: the sender. */
  from: string;
}

/** Checks what can be checked without the chain; throws the error to show next to its field. `from`: the user's wallet per family. */
export function resolveSendRequest(input: SendRequest, from: Record<ChainFamily, string>): ResolvedSend {
  const request = sendRequestSchema.parse(input);
  if (!isChainName(request.chain)) throw new AppError('unsupported_chain', 'Choose a network and token to send.', { param: 'token' });
  const info = CHAINS[request.chain];
  const token =
    info.family === 'evm'
      ? info.tokens.find((t) => t.address.toLowerCase() === request.tokenAddress.toLowerCase())
      : findToken(info, request.tokenAddress);
  if (!token) throw new AppError('unsupported_token', `There is no such token on ${info.displayName}.`, { param: 'token' });
  const sender = from[info.family];
  if (!sender) throw new AppError('unsupported_chain', `Your account has no ${info.displayName} wallet.`, { param: 'token' });
  const context = { chainName: info.displayName, from: sender, token };
  const toAddress =
    info.family === 'evm' ? resolveRecipient(request.toAddress, context) : resolveSolanaRecipient(request.toAddress, context);
  const parsed = parseAmount(request.amount, token.decimals);
  if (!parsed.ok) throw new AppError('invalid_amount', amountMessage(parsed.reason, token), { param: 'amount' });
  return { chain: info.name, token, toAddress, amount: parsed.baseUnits, from: sender };
}

/** Solana's System Program: lamports sent there are lost. */
const SYSTEM_PROGRAM = '11111111111111111111111111111111';

function resolveSolanaRecipient(raw: string, context: { chainName: string; from: string; token: TokenInfo }): string {
  const invalid = (message: string) => new AppError('invalid_address', message, { param: 'toAddress' });
  if (!raw) throw invalid('Enter the address to send to.');
  if (raw.startsWith('0x'))
    throw invalid(`That is an EVM address. On ${context.chainName} send to a Solana address (base58, 32 to 44 characters).`);
  if (!isValidAddress('solana', raw))
    throw invalid(`That is not a Solana address: on ${context.chainName} an address is 32 to 44 base58 characters.`);
  if (raw === SYSTEM_PROGRAM) throw invalid('That is the System Program: anything sent there is lost.');
  if (raw === context.from) throw invalid('That is this wallet’s own address. Enter the recipient’s address.');
  if (!context.token.isNative && raw === context.token.address) {
    throw invalid(`That is the ${context.token.symbol} mint itself: tokens sent there are lost. Enter the recipient’s wallet address.`);
  }
  return raw;
}

function resolveRecipient(raw: string, context: { chainName: string; from: string; token: TokenInfo }): string {
  const invalid = (message: string) => new AppError('invalid_address', message, { param: 'toAddress' });
  if (!raw) throw invalid('Enter the address to send to.');
  if (!raw.startsWith('0x') && isValidAddress('solana', raw)) {
    throw invalid(`That is a Solana address. On ${context.chainName} send to an EVM address: 0x followed by 40 hexadecimal characters.`);
  }
  if (!isAddress(raw, { strict: false }))
    throw invalid(`That is not an EVM address: on ${context.chainName} an address is 0x followed by 40 hexadecimal characters.`);
  if (!isAddress(raw, { strict: true })) {
    throw invalid(
      'The address’s mix of capital and small letters (its checksum) does not match: it was probably mistyped. Copy it again from the recipient.',
    );
  }
  const address = getAddress(raw);
  if (address === EVM_NATIVE_TOKEN_ADDRESS) throw invalid('That is the zero address: anything sent there is lost.');
  if (address === getAddress(context.from)) throw invalid('That is this wallet’s own address. Enter the recipient’s address.');
  if (!context.token.isNative && address === getAddress(context.token.address)) {
    throw invalid(`That is the ${context.token.symbol} contract itself: tokens sent there are lost. Enter the recipient’s address.`);
  }
  return address;
}

function amountMessage(reason: 'format' | 'too_many_decimals' | 'not_positive' | 'too_large', token: TokenInfo): string {
  switch (reason) {
    case 'format':
      return `Enter an amount of ${token.symbol} like 12.5.`;
    case 'too_many_decimals':
      return `${token.symbol} has at most ${token.decimals} decimal places.`;
    case 'not_positive':
      return 'Enter an amount above zero.';
    case 'too_large':
      return 'That amount is too large.';
  }
}
