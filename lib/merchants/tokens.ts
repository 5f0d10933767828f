/**
 * The Tokens tab: which tokens a merchant accepts, per chain.
 *
 *  - Every registry token is accepted until the merchant disables it; charges for a disabled token are
 *    refused with `unsupported_token` (createCharge asks `merchantTokenRule`).
 *  - A custom ERC-20 is added by address on a main EVM network: its symbol, name and decimals are read
 *    from the chain (never typed in), so amounts are scaled with the contract's real decimals. Test
 *    charges stay native-only on test networks, as the API reference says.
 *  - Managing tokens needs 'tokens.manage' (owner, admin, developer); every change is audited.
 */
import { and, eq } from 'drizzle-orm';
import { erc20Abi, getAddress, isAddress, type Hex } from 'viem';
import { recordAudit } from '@/lib/audit/record-audit';
import { publicClientFor } from '@/lib/chains/clients';
import { CHAINS, CHAIN_NAMES, type ChainName, type TokenInfo } from '@/lib/chains/registry';
import { isChainServed } from '@/lib/chains/served';
import { getDb, type DbOrTx } from '@/lib/db/client';
import { merchantTokens, type ApiKeyMode, type MerchantTokenRow } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';
import { authorizeMember } from './permissions';
import { cachedTokenRules, forgetMerchantCredentials } from '@/lib/merchants/credential-cache';

interface Actor {
  userId: string;
  merchantId: string;
  ip?: string | null;
}

export interface AcceptedToken {
  chain: ChainName;
  address: string;
  symbol: string;
  name: string;
  decimals: number;
  isNative: boolean;
  isCustom: boolean;
  enabled: boolean;
  /** False when this server has no RPC URL for the chain: charges on it are refused whatever the setting. */
  isChainServed: boolean;
}

/** Chains of a dashboard mode: main networks in live mode, test networks in test mode. */
export function chainsOfMode(mode: ApiKeyMode): ChainName[] {
  return CHAIN_NAMES.filter((name) => CHAINS[name].isTestnet === (mode === 'test'));
}

const key = (chain: string, address: string) => `${chain}:${address.toLowerCase()}`;

export async function listAcceptedTokens(input: Actor & { mode: ApiKeyMode }): Promise<AcceptedToken[]> {
  await authorizeMember(getDb(), { ...input, permission: 'dashboard.view' });
  const rows = await getDb().select().from(merchantTokens).where(eq(merchantTokens.merchantId, input.merchantId));
  const byKey = new Map(rows.map((row) => [key(row.chain, row.address), row]));
  return chainsOfMode(input.mode).flatMap((chain) => [
    ...CHAINS[chain].tokens.map((token) => ({
      isChainServed: isChainServed(chain),
      chain,
      address: token.address,
      symbol: token.symbol,
      name: token.name,
      decimals: token.decimals,
      isNative: token.isNative,
      isCustom: false,
      enabled: byKey.get(key(chain, token.address))?.enabled ?? true,
    })),
    ...rows
      .filter((row) => row.chain === chain && row.isCustom)
      .map((row) => ({
        chain,
        address: row.address,
        symbol: row.symbol,
        name: row.name,
        decimals: row.decimals,
        isNative: false,
        isCustom: true,
        enabled: row.enabled,
        isChainServed: isChainServed(chain),
      })),
  ]);
}

export async function setTokenEnabled(input: Actor & { chain: string; address: string; enabled: boolean }): Promise<void> {
  const chain = chainOf(input.chain);
  await getDb().transaction(async (tx) => {
    const actor = await authorizeMember(tx, { ...input, permission: 'tokens.manage' });
    const registry = CHAINS[chain].tokens.find((t) => t.address.toLowerCase() === input.address.toLowerCase());
    const [custom] = await tx
      .select()
      .from(merchantTokens)
      .where(
        and(
          eq(merchantTokens.merchantId, input.merchantId),
          eq(merchantTokens.chain, chain),
          eq(merchantTokens.address, input.address.toLowerCase()),
        ),
      );
    const token = registry ?? (custom?.isCustom ? custom : undefined);
    if (!token) throw new AppError('not_found', `No token ${input.address} on ${chain} for this merchant.`, { param: 'address' });
    await tx
      .insert(merchantTokens)
      .values({
        merchantId: input.merchantId,
        chain,
        address: token.address.toLowerCase(),
        symbol: token.symbol,
        name: token.name,
        decimals: token.decimals,
        enabled: input.enabled,
      })
      .onConflictDoUpdate({
        target: [merchantTokens.merchantId, merchantTokens.chain, merchantTokens.address],
        set: { enabled: input.enabled, updatedAt: new Date() },
      });
    await recordAudit(tx, {
      actor,
      action: input.enabled ? 'token.enable' : 'token.disable',
      targetId: key(chain, token.address),
      ip: input.ip,
    });
  });
  forgetMerchantCredentials(input.merchantId);
}

/** Adds a custom ERC-20 on a main EVM network; symbol, name and decimals come from the contract. */
export async function addCustomToken(input: Actor & { chain: string; address: string }): Promise<AcceptedToken> {
  const chain = chainOf(input.chain);
  const info = CHAINS[chain];
  if (info.family !== 'evm' || info.isTestnet) {
    throw new AppError('invalid_request', 'Custom tokens are ERC-20s on a main EVM network (POLYGON, BSC, DFK).', { param: 'chain' });
  }
  const address = input.address.trim();
  if (!isAddress(address, { strict: false }))
    throw new AppError('invalid_address', `"${address}" is not an EVM address (0x followed by 40 hex digits).`, { param: 'address' });
  if (info.tokens.some((t) => t.address.toLowerCase() === address.toLowerCase())) {
    throw new AppError('invalid_request', `${address} is already a supported token on ${chain}.`, { param: 'address' });
  }
  // The role first: a viewer must not make us call the chain (checked again in the transaction).
  await authorizeMember(getDb(), { ...input, permission: 'tokens.manage' });
  const contract = await readErc20(chain, getAddress(address));
  return getDb()
    .transaction(async (tx) => {
      const actor = await authorizeMember(tx, { ...input, permission: 'tokens.manage' });
      const row = { merchantId: input.merchantId, chain, address: address.toLowerCase(), ...contract, isCustom: true, enabled: true };
      await tx
        .insert(merchantTokens)
        .values(row)
        .onConflictDoUpdate({
          target: [merchantTokens.merchantId, merchantTokens.chain, merchantTokens.address],
          set: { ...contract, enabled: true, updatedAt: new Date() },
        });
      await recordAudit(tx, { actor, action: 'token.add_custom', targetId: key(chain, address), data: contract, ip: input.ip });
      return { chain, address: row.address, ...contract, isNative: false, isCustom: true, enabled: true, isChainServed: true };
    })
    .finally(() => forgetMerchantCredentials(input.merchantId));
}

async function readErc20(chain: ChainName, address: Hex): Promise<{ symbol: string; name: string; decimals: number }> {
  const client = publicClientFor(chain);
  if (!client) throw new AppError('chain_unavailable', `${CHAINS[chain].displayName} is not reachable right now. Try again shortly.`);
  try {
    const [symbol, name, decimals] = await Promise.all([
      client.readContract({ address, abi: erc20Abi, functionName: 'symbol' }),
      client.readContract({ address, abi: erc20Abi, functionName: 'name' }),
      client.readContract({ address, abi: erc20Abi, functionName: 'decimals' }),
    ]);
    if (!/^[\w.$-]{1,16}$/.test(symbol) || decimals > 36) throw new Error('not a usable ERC-20');
    return { symbol, name: name.slice(0, 64), decimals };
  } catch {
    throw new AppError(
      'invalid_request',
      `No ERC-20 token at ${address} on ${CHAINS[chain].displayName} (symbol and decimals could not be read).`,
      {
        param: 'address',
      },
    );
  }
}

function chainOf(name: string): ChainName {
  if (!(CHAIN_NAMES as readonly string[]).includes(name))
    throw new AppError('unsupported_chain', `Unknown chain "${name}".`, { param: 'chain' });
  return name as ChainName;
}

/**
 * For createCharge: the merchant's rule for a token on a chain — disabled, a custom token's info, or
 * nothing (registry defaults apply). Read from the merchant's cached rules (lib/merchants/credential-cache.ts:
 * every change reaches every instance by NOTIFY), so the hot path makes no query for it.
 */
export async function merchantTokenRule(
  db: DbOrTx,
  input: { merchantId: string; chain: ChainName; address: string },
): Promise<{ disabled: boolean; custom?: TokenInfo } | undefined> {
  // `db` is the caller's transaction when it holds one: a second pool connection could deadlock the pool.
  const rules = await cachedTokenRules(input.merchantId, () => loadTokenRules(db, input.merchantId));
  return rules.get(ruleKey(input.chain, input.address));
}

type TokenRule = { disabled: boolean; custom?: TokenInfo };

async function loadTokenRules(db: DbOrTx, merchantId: string): Promise<Map<string, TokenRule>> {
  const rows: MerchantTokenRow[] = await db.select().from(merchantTokens).where(eq(merchantTokens.merchantId, merchantId));
  return new Map(
    rows.map((row) => [
      ruleKey(row.chain, row.address),
      {
        disabled: !row.enabled,
        ...(row.isCustom
          ? { custom: { symbol: row.symbol, name: row.name, address: getAddress(row.address), decimals: row.decimals, isNative: false } }
          : {}),
      },
    ]),
  );
}

function ruleKey(chain: string, address: string): string {
  return `${chain}:${address.toLowerCase()}`;
}
