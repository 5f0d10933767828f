import { parseAbiItem, type AbiFunction } from 'viem';
import { describe, expect, it } from 'vitest';
import type { StoredChargeItem } from '@/lib/db/schema';
import { bindArguments } from './bind-arguments';

const mint = parseAbiItem('function mint(address to, uint256 id, uint256 amount)') as AbiFunction;
const payer = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const item = (name: string, quantity: number): StoredChargeItem => ({
  name,
  amount: '1',
  quantity,
  unitBaseUnits: '1000000',
  lineTotalBaseUnits: String(quantity * 1_000_000),
});
const bind = (items: StoredChargeItem[]) =>
  bindArguments({
    fn: mint,
    bindings: [{ source: 'recipient' }, { source: 'metadata', key: 'itemId' }, { source: 'quantity' }],
    charge: { items, metadata: { itemId: '7' }, toAddress: null },
    payer,
  });

describe('binding a charge to mint(to, id, amount)', () => {
  it('the quantity is the items’ total, and 1 for a charge without items (never a mint of 0)', () => {
    expect(bind([]).display).toEqual([payer, '7', '1']);
    expect(bind([item('Sword', 2), item('Shield', 3)]).display).toEqual([payer, '7', '5']);
  });
});
