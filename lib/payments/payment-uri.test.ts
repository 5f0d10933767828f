import { describe, expect, it } from 'vitest';
import { CHAINS, SOLANA_NATIVE_MINT } from '@/lib/chains/registry';
import { amountToRequest, paymentRequestUri } from './payment-uri';
import { parseSolanaPayTransferRequest } from './solana/solana-pay-transfer-request';

const USDC_POLYGON = CHAINS.POLYGON.tokens.find((t) => t.symbol === 'USDC')!;
const USDC_SOLANA = CHAINS.SOLANA.tokens.find((t) => t.symbol === 'USDC')!;
const EVM_DEPOSIT = { address: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', reference: null };
const SOLANA_DEPOSIT = {
  address: 'GvqyZ3ZsWcaRRqbQ69QGNJSD8fUc2F2HhT2tZHKbmrhV',
  reference: '4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T',
};

describe('the amount a payment request asks for', () => {
  it('is the total before anything arrived, and only what is still due after a part payment', () => {
    expect(amountToRequest({ totalBaseUnits: 2_500_000n, receivedBaseUnits: 0n })).toBe(2_500_000n);
    expect(amountToRequest({ totalBaseUnits: 2_500_000n, receivedBaseUnits: 1_000_000n })).toBe(1_500_000n);
    expect(amountToRequest({ totalBaseUnits: 2_500_000n, receivedBaseUnits: 2_500_000n })).toBe(0n);
    expect(amountToRequest({ totalBaseUnits: 2_500_000n, receivedBaseUnits: 3_000_000n })).toBe(0n);
  });

  it('EIP-681 links encode the amount due, for ERC-20 tokens and the native coin', () => {
    const due = amountToRequest({ totalBaseUnits: 2_500_000n, receivedBaseUnits: 1_000_000n });
    expect(
      paymentRequestUri({ chain: CHAINS.POLYGON, chargeId: 'ch_x', deposit: EVM_DEPOSIT, token: USDC_POLYGON, amountBaseUnits: due }),
    ).toBe(`ethereum:${USDC_POLYGON.address}@137/transfer?address=${EVM_DEPOSIT.address}&uint256=1500000`);
    const pol = CHAINS.POLYGON.tokens.find((t) => t.isNative)!;
    const wei = amountToRequest({ totalBaseUnits: 3n * 10n ** 17n, receivedBaseUnits: 10n ** 17n });
    expect(paymentRequestUri({ chain: CHAINS.POLYGON, chargeId: 'ch_x', deposit: EVM_DEPOSIT, token: pol, amountBaseUnits: wei })).toBe(
      `ethereum:${EVM_DEPOSIT.address}@137?value=200000000000000000`,
    );
  });

  it('Solana Pay requests encode the amount due in user units, with the reference, for SPL tokens and SOL', () => {
    const due = amountToRequest({ totalBaseUnits: 12_500_000n, receivedBaseUnits: 10_000_000n });
    const spl = parseSolanaPayTransferRequest(
      paymentRequestUri({ chain: CHAINS.SOLANA, chargeId: 'ch_y', deposit: SOLANA_DEPOSIT, token: USDC_SOLANA, amountBaseUnits: due }),
      { decimals: 6 },
    );
    expect(spl).toMatchObject({
      ok: true,
      request: { amount: '2.5', amountBaseUnits: 2_500_000n, splToken: USDC_SOLANA.address, references: [SOLANA_DEPOSIT.reference] },
    });
    const sol = CHAINS.SOLANA.tokens.find((t) => t.address === SOLANA_NATIVE_MINT)!;
    const lamports = amountToRequest({ totalBaseUnits: 2_000_000_000n, receivedBaseUnits: 500_000_000n });
    const native = parseSolanaPayTransferRequest(
      paymentRequestUri({ chain: CHAINS.SOLANA, chargeId: 'ch_y', deposit: SOLANA_DEPOSIT, token: sol, amountBaseUnits: lamports }),
      { decimals: 9 },
    );
    expect(native).toMatchObject({ ok: true, request: { amount: '1.5', recipient: SOLANA_DEPOSIT.address } });
    expect(native.ok && native.request.splToken).toBeUndefined();
  });
});
