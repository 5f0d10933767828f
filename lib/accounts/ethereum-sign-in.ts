/**
 * Sign in with Ethereum (EIP-4361). The server issues a single-use nonce (5 minutes); the signed
 * message must name this app's domain and origin, a chain the service runs, that nonce, and be fresh.
 * The signature is verified with viem. An Ethereum account is not usable until it verifies an e-mail
 * by code (spec account rule 2: SIWE is excluded from the social sign-up exemption).
 */
import { randomBytes } from 'node:crypto';
import { and, eq, gt, isNull } from 'drizzle-orm';
import { getAddress, verifyMessage, type Hex } from 'viem';
import { z } from 'zod';
import { generateSiweNonce, parseSiweMessage, validateSiweMessage } from 'viem/siwe';
import { CHAINS } from '@/lib/chains/registry';
import { getDb } from '@/lib/db/client';
import { siweNonces } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';
import { createUser } from './create-user';
import { findUserByIdentity } from './find-user';

export const SIWE_NONCE_TTL_MS = 5 * 60_000;
/** The registry's EVM chains, plus Ethereum mainnet where most wallets sit when they sign in. */
const SIWE_CHAIN_IDS = new Set([1, ...Object.values(CHAINS).flatMap((chain) => (chain.evmChainId ? [chain.evmChainId] : []))]);

/**
 * What the browser sends (the sign-in button's action): the EIP-4361 text and its signature. A message is a
 * few hundred characters; an EIP-191 signature 65 bytes in hex; a smart-contract wallet's (ERC-1271, or ERC-6492 with its deployment
 * call) can run to a few kilobytes.
 */
export const siweSignInSchema = z.object({
  message: z.string().min(1).max(4096),
  signature: z
    .string()
    .max(20_000)
    .regex(/^0x[0-9a-fA-F]+$/, 'must be a hex signature (0x…)'),
});

export async function issueSiweNonce(now = new Date()): Promise<string> {
  // viem's generator gives an alphanumeric nonce (EIP-4361 wants ≥ 8); add entropy of our own.
  const nonce = `${generateSiweNonce()}${randomBytes(8).toString('hex')}`;
  await getDb()
    .insert(siweNonces)
    .values({ nonce, expiresAt: new Date(now.getTime() + SIWE_NONCE_TTL_MS), createdAt: now });
  return nonce;
}

export async function signInWithEthereum(input: {
  message: string;
  signature: string;
  /** The app's own host (e.g. "localhost:3000") and origin; the message must name them. */
  domain: string;
  origin: string;
  now?: Date;
}): Promise<{ userId: string; created: boolean }> {
  const now = input.now ?? new Date();
  const fields = parseSiweMessage(input.message);
  const refuse = (message: string) => new AppError('invalid_request', message, { param: 'message' });
  if (!fields.address || !fields.nonce || !fields.chainId) throw refuse('This is not a Sign-In with Ethereum message.');
  if (fields.domain !== input.domain) throw refuse(`The message is for ${fields.domain}, not ${input.domain}.`);
  // URL.parse: a URI that is no URL names no site of ours (new URL would throw a TypeError).
  if (fields.uri && URL.parse(fields.uri)?.origin !== input.origin) throw refuse('The message names another site.');
  if (!SIWE_CHAIN_IDS.has(fields.chainId)) throw refuse(`Chain ${fields.chainId} is not one this service runs.`);
  if (!validateSiweMessage({ message: fields, domain: input.domain, time: now })) {
    throw refuse('The message has expired or is not valid yet. Sign a new one.');
  }
  if (fields.issuedAt && now.getTime() - fields.issuedAt.getTime() > SIWE_NONCE_TTL_MS)
    throw refuse('The message is too old. Sign a new one.');
  const valid = await verifyMessage({ address: fields.address, message: input.message, signature: input.signature as Hex }).catch(
    () => false,
  );
  if (!valid) throw new AppError('invalid_request', 'The signature does not match the address.', { param: 'signature' });

  // The nonce is used up atomically: a replayed message finds it used.
  const used = await getDb()
    .update(siweNonces)
    .set({ usedAt: now })
    .where(and(eq(siweNonces.nonce, fields.nonce), isNull(siweNonces.usedAt), gt(siweNonces.expiresAt, now)))
    .returning({ nonce: siweNonces.nonce });
  if (used.length === 0) throw refuse('This sign-in request was already used or has expired. Try again.');

  const address = getAddress(fields.address);
  const existing = await findUserByIdentity('ethereum', address);
  if (existing) return { userId: existing.id, created: false };
  const user = await getDb().transaction((tx) =>
    createUser(tx, { email: null, emailVerified: false, method: 'ethereum', subject: address }),
  );
  return { userId: user.id, created: true };
}
