/**
 * Creates a checkout session for a partner's order: what `POST /sandbox-provider/api/sessions` does.
 * The partner's retry for the same order gets its open session back rather than a second one that
 * could be paid twice.
 */
import { desc, eq, sql } from 'drizzle-orm';
import { getChain, isValidAddress, type ChainName } from '@/lib/chains/registry';
import { getDb } from '@/lib/db/client';
import { sandboxProviderSessions, type SandboxProviderSessionRow } from '@/lib/db/schema/sandbox-provider';
import { newId } from '@/lib/ids';
import { parseAmount } from '@/lib/money';
import { sandboxProviderBaseUrl } from './config';
import { SandboxApiError, invalidRequest } from './errors';
import { SANDBOX_FIAT_CURRENCIES, sellableToken } from './sandbox-quote';
import { createSessionSchema } from './schemas';
import { isExpired } from './state';

const SESSION_LIFETIME_MS = 30 * 60 * 1000;

export interface CreatedSession {
  session: SandboxProviderSessionRow;
  url: string;
  /** False when an identical open session of the same order was returned. */
  created: boolean;
}

function paymentScreenUrl(sessionId: string): string {
  return `${sandboxProviderBaseUrl()}/pay/${sessionId}`;
}

export async function createSession(body: unknown, options: { now?: Date } = {}): Promise<CreatedSession> {
  const now = options.now ?? new Date();
  const parsed = createSessionSchema.safeParse(body);
  if (!parsed.success) throw invalidRequest(parsed.error);
  const input = parsed.data;

  const token = sellableToken(input.chain, input.tokenSymbol);
  if (!token)
    throw new SandboxApiError('unsupported_asset', `Sandpiper Pay does not sell ${input.tokenSymbol} on ${input.chain}.`, 'tokenSymbol');
  if (!SANDBOX_FIAT_CURRENCIES.includes(input.fiatCurrency)) {
    throw new SandboxApiError(
      'unsupported_currency',
      `Sandpiper Pay takes ${SANDBOX_FIAT_CURRENCIES.join(', ')}, not ${input.fiatCurrency}.`,
      'fiatCurrency',
    );
  }
  if (!isValidAddress(getChain(input.chain).family, input.walletAddress)) {
    throw new SandboxApiError('invalid_request', `walletAddress: not a valid address on ${input.chain}`, 'walletAddress');
  }
  const crypto = parseAmount(input.cryptoAmount, token.decimals);
  if (!crypto.ok) {
    throw new SandboxApiError('invalid_request', `cryptoAmount: must be positive with at most ${token.decimals} decimals`, 'cryptoAmount');
  }
  const fiat = parseAmount(input.fiatAmount, 2);
  if (!fiat.ok) throw new SandboxApiError('invalid_request', 'fiatAmount: must be positive with at most 2 decimals', 'fiatAmount');

  const values = {
    partnerOrderId: input.partnerOrderId,
    chain: input.chain satisfies ChainName,
    tokenSymbol: token.symbol,
    tokenDecimals: token.decimals,
    cryptoBaseUnits: crypto.baseUnits,
    walletAddress: input.walletAddress,
    fiatCurrency: input.fiatCurrency,
    fiatAmount: input.fiatAmount,
    paymentMethod: input.paymentMethod,
    country: input.country,
    redirectUrl: input.redirectUrl,
    email: input.email ?? null,
    standingInFor: input.standingInFor ?? null,
  };

  return getDb().transaction(async (tx) => {
    // Serialises creates of one order, so two concurrent retries cannot both open a session.
    await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`sandbox-session:${input.partnerOrderId}`}, 0))`);
    const earlier = await tx
      .select()
      .from(sandboxProviderSessions)
      .where(eq(sandboxProviderSessions.partnerOrderId, input.partnerOrderId))
      .orderBy(desc(sandboxProviderSessions.createdAt));
    for (const session of earlier) {
      // A declined or abandoned attempt does not stop the buyer from trying again.
      if (session.status === 'failed' || isExpired(session, now)) continue;
      if (session.status === 'open' && isSameOrder(session, values, fiat.baseUnits)) {
        return { session, url: paymentScreenUrl(session.id), created: false };
      }
      throw new SandboxApiError(
        'duplicate_order',
        session.status === 'open'
          ? `Order ${input.partnerOrderId} already has an open session with other details (${session.id}).`
          : `Order ${input.partnerOrderId} is already being paid or was paid (${session.id}).`,
        'partnerOrderId',
      );
    }
    const [session] = await tx
      .insert(sandboxProviderSessions)
      .values({ id: newId('sandboxSession'), ...values, expiresAt: new Date(now.getTime() + SESSION_LIFETIME_MS) })
      .returning();
    return { session: session!, url: paymentScreenUrl(session!.id), created: true };
  });
}

function isSameOrder(
  session: SandboxProviderSessionRow,
  values: Omit<
    SandboxProviderSessionRow,
    'id' | 'status' | 'paidWith' | 'cardLast4' | 'failureReason' | 'deliveryStartedAt' | 'txHash' | 'expiresAt' | 'createdAt' | 'updatedAt'
  >,
  fiatCents: bigint,
): boolean {
  const stored = parseAmount(session.fiatAmount, 8);
  return (
    stored.ok &&
    stored.baseUnits === fiatCents * 10n ** 6n &&
    session.chain === values.chain &&
    session.tokenSymbol === values.tokenSymbol &&
    session.cryptoBaseUnits === values.cryptoBaseUnits &&
    session.walletAddress === values.walletAddress &&
    session.fiatCurrency === values.fiatCurrency &&
    session.paymentMethod === values.paymentMethod &&
    session.country === values.country &&
    session.redirectUrl === values.redirectUrl &&
    session.email === values.email
  );
}
