/**
 * On-ramp links (issue 14): a link can never make a foreign address look like the buyer's own
 * wallet, and its `wallet_label` reads as verified only with a valid signature from the merchant's
 * link key (lib/onramp/link-signature.ts, lib/onramp/onramp-link-key.ts).
 */
import { eq } from 'drizzle-orm';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { beforeEach, describe, expect, it } from 'vitest';
import { getDb } from '@/lib/db/client';
import { merchantMembers, merchants } from '@/lib/db/schema';
import { rollOnrampLinkKey, verifiedLinkMerchantName } from '@/lib/onramp/onramp-link-key';
import { signOnrampLink } from '@/lib/onramp/link-signature';
import { appError, newUser } from '@/test/accounts';
import { newMerchant } from '@/test/fixtures';
import { linkDestination } from './link-destination';
import { parseOnrampParams } from './onramp-params';

const address = () => privateKeyToAccount(generatePrivateKey()).address;

describe('the destination of a link', () => {
  it("a foreign wallet is an external wallet, even labelled “Your Chargeport wallet”; the buyer's own is theirs", () => {
    const foreign = address();
    const params = parseOnrampParams({ chain: 'POLYGON', token: 'USDC', wallet: foreign, wallet_label: 'Your Chargeport wallet' });
    expect(linkDestination({ wallet: params.wallet!, ownAddresses: [address()], verifiedBy: null })).toEqual({
      kind: 'link',
      address: foreign,
      label: 'Your Chargeport wallet',
      verifiedBy: null,
    });
    const own = address();
    const mine = parseOnrampParams({ chain: 'POLYGON', wallet: own.toLowerCase(), wallet_label: 'Acme Games' });
    expect(linkDestination({ wallet: mine.wallet!, ownAddresses: [own], verifiedBy: null })).toEqual({
      kind: 'own',
      wallets: { evm: own },
    });
  });
});

describe('signed links', () => {
  let merchantId: string;
  let owner: string;
  beforeEach(async () => {
    merchantId = (await newMerchant()).id;
    owner = await newUser();
    await getDb().insert(merchantMembers).values({ merchantId, userId: owner, role: 'owner' });
  });

  it('a valid signature verifies the label; unsigned, forged or for another wallet it does not', async () => {
    const wallet = address();
    const fields = { merchantId, wallet, walletLabel: 'Acme Games' };
    // No key yet: nothing verifies.
    expect(await verifiedLinkMerchantName(fields, signOnrampLink(Buffer.alloc(32), fields))).toBeNull();

    const { key } = await rollOnrampLinkKey({ userId: owner, merchantId });
    const [row] = await getDb().select().from(merchants).where(eq(merchants.id, merchantId));
    expect(row!.onrampLinkKey).not.toContain(key); // sealed at rest
    const signature = signOnrampLink(Buffer.from(key, 'hex'), fields);
    expect(await verifiedLinkMerchantName(fields, signature)).toBe(row!.name);
    // The EVM address's case is not part of what is signed.
    expect(await verifiedLinkMerchantName({ ...fields, wallet: wallet.toLowerCase() }, signature)).toBe(row!.name);

    expect(await verifiedLinkMerchantName({ ...fields, wallet: address() }, signature)).toBeNull(); // tampered wallet
    expect(await verifiedLinkMerchantName({ ...fields, walletLabel: 'Your Chargeport wallet' }, signature)).toBeNull();
    expect(await verifiedLinkMerchantName(fields, signOnrampLink(Buffer.alloc(32, 1), fields))).toBeNull(); // forged
    expect(await verifiedLinkMerchantName(fields, 'not-a-signature')).toBeNull();
    const other = (await newMerchant()).id;
    expect(await verifiedLinkMerchantName({ ...fields, merchantId: other }, signature)).toBeNull();

    // Rolling the key retires links signed with the old one.
    await rollOnrampLinkKey({ userId: owner, merchantId });
    expect(await verifiedLinkMerchantName(fields, signature)).toBeNull();
  });

  it('only owners and admins manage the key', async () => {
    const developer = await newUser();
    await getDb().insert(merchantMembers).values({ merchantId, userId: developer, role: 'developer' });
    expect((await appError(rollOnrampLinkKey({ userId: developer, merchantId }))).code).toBe('forbidden');
    const [row] = await getDb().select().from(merchants).where(eq(merchants.id, merchantId));
    expect(row!.onrampLinkKey).toBeNull();
  });

  it('the page shows the signed label as verified only through linkDestination with verifiedBy', () => {
    const wallet = address();
    const params = parseOnrampParams({ wallet, wallet_label: 'Acme', merchant: merchantId, signature: 'ab'.repeat(32) });
    expect(params.wallet!.signature).toEqual({ merchantId, value: 'ab'.repeat(32) });
    expect(linkDestination({ wallet: params.wallet!, ownAddresses: [], verifiedBy: 'Acme Games' })).toMatchObject({
      kind: 'link',
      verifiedBy: 'Acme Games',
    });
  });
});
