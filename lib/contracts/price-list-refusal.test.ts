/** The price list's arithmetic (price-list-refusal.ts), without a chain: which charges of publishable keys fire a rule. */
import { describe, expect, it } from 'vitest';
import type { StoredChargeItem, StoredPriceList } from '@/lib/db/schema';
import { describePriceList, priceListRefusal } from './price-list-refusal';

const USDC = '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359';
const item = (name: string, quantity: number): StoredChargeItem => ({
  name,
  amount: '0',
  quantity,
  unitBaseUnits: '0',
  lineTotalBaseUnits: '0',
});
const byName: StoredPriceList = {
  tokenAddress: USDC,
  tokenSymbol: 'USDC',
  tokenDecimals: 6,
  itemId: { source: 'item_name' },
  minUnitBaseUnits: { Sword: '2000000', Shield: '500000' },
};
const charge = (
  totalBaseUnits: bigint,
  items: StoredChargeItem[],
  extra: { tokenAddress?: string; metadata?: Record<string, string> } = {},
) => ({
  tokenAddress: extra.tokenAddress ?? USDC.toLowerCase(),
  tokenSymbol: 'USDC',
  totalBaseUnits,
  items,
  metadata: extra.metadata ?? {},
});

describe('priceListRefusal', () => {
  it('does not check charges of secret keys, whatever their price', () => {
    expect(priceListRefusal({ keyKind: 'secret', priceList: null, charge: charge(1n, []) })).toBeNull();
    expect(priceListRefusal({ keyKind: 'secret', priceList: byName, charge: charge(1n, [item('Sword', 9)]) })).toBeNull();
  });

  it('item.name: the total must cover every line’s minimum × quantity, and every line must be listed', () => {
    const lines = [item('Sword', 2), item('Shield', 2)]; // 2 × 2 + 2 × 0.5 = 5
    expect(priceListRefusal({ keyKind: 'publishable', priceList: byName, charge: charge(5_000_000n, lines) })).toBeNull();
    expect(priceListRefusal({ keyKind: 'publishable', priceList: byName, charge: charge(4_999_999n, lines) })).toContain(
      'total 4.999999 USDC is below the price list’s 5 USDC',
    );
    expect(priceListRefusal({ keyKind: 'publishable', priceList: byName, charge: charge(9_000_000n, [item('Crown', 1)]) })).toContain(
      '“Crown” (item.name) is not in the rule’s price list',
    );
    expect(priceListRefusal({ keyKind: 'publishable', priceList: byName, charge: charge(9_000_000n, []) })).toContain('has no items');
  });

  it('refuses another token, and item ids inherited from Object.prototype', () => {
    expect(
      priceListRefusal({
        keyKind: 'publishable',
        priceList: byName,
        charge: charge(9_000_000n, [item('Sword', 1)], { tokenAddress: '0x1' }),
      }),
    ).toContain('the rule’s price list is in USDC');
    const byMetadata: StoredPriceList = { ...byName, itemId: { source: 'metadata', key: 'itemId' } };
    expect(
      priceListRefusal({
        keyKind: 'publishable',
        priceList: byMetadata,
        charge: charge(9_000_000n, [], { metadata: { itemId: 'constructor' } }),
      }),
    ).toContain('is not in the rule’s price list');
    // metadata.<key>: one item id, × the items' total quantity (1 without items).
    expect(
      priceListRefusal({
        keyKind: 'publishable',
        priceList: byMetadata,
        charge: charge(2_000_000n, [], { metadata: { itemId: 'Sword' } }),
      }),
    ).toBeNull();
    expect(
      priceListRefusal({
        keyKind: 'publishable',
        priceList: byMetadata,
        charge: charge(2_000_000n, [item('x', 2)], { metadata: { itemId: 'Sword' } }),
      }),
    ).toContain('below');
  });

  it('is described for the Contracts tab in decimals of its token', () => {
    expect(describePriceList(byName)).toBe('Price list in USDC, item id from item.name: Sword ≥ 2, Shield ≥ 0.5');
  });
});
