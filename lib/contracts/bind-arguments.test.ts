import { parseAbiItem, type AbiFunction } from 'viem';
import { describe, expect, it } from 'vitest';
import { bindArguments } from './bind-arguments';

const mint = parseAbiItem('function mint(address to, uint256 id, uint256 amount)') as AbiFunction;
const payer = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const bind = (items: { name: string; amount: string; quantity: number }[]) =>
  bindArguments({
    fn: mint,
    bindings: [{ source: 'recipient' }, { source: 'metadata', key: 'itemId' }, { source: 'quantity' }],
    charge: { items, metadata: { itemId: '7' }, toAddress: null },
    payer,
  });

describe('binding a charge to mint(to, id, amount)', () => {
  it('the quantity is the items’ total, and 1 for a charge without items (never a mint of 0)', () => {
    expect(bind([]).display).toEqual([payer, '7', '1']);
    expect(
      bind([
        { name: 'Sword', amount: '1', quantity: 2 },
        { name: 'Shield', amount: '1', quantity: 3 },
      ]).display,
    ).toEqual([payer, '7', '5']);
  });
});
