import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseSolanaPayTransferRequest, solanaPayTransferRequest } from './solana-pay-transfer-request';

// From the spec's examples (docs.solanapay.com/spec).
const MVINES = 'mvines9iiHiQTysrwkJjGf2gb9Ex9jXJX8ns3qwf2kN';
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const REF_A = '82ZJ7nbGpixjeDCmEhUcmwXYfvurzAgGdtSMuHnUgyny';
const REF_B = 'CFsTGaBpaTCNZDxQEbbnNdtdbqmjZXZBu7p5tn7MFYGz';

describe('solanaPayTransferRequest', () => {
  it('writes the spec example for 1 SOL exactly', () => {
    const uri = solanaPayTransferRequest({
      recipient: MVINES,
      amountBaseUnits: 1_000_000_000n,
      decimals: 9,
      references: [],
      label: 'Michael',
      message: 'Thanks for all the fish',
      memo: 'OrderId12345',
    });
    expect(uri).toBe(`solana:${MVINES}?amount=1&label=Michael&message=Thanks%20for%20all%20the%20fish&memo=OrderId12345`);
  });

  it('writes the spec example for 0.01 USDC exactly', () => {
    expect(solanaPayTransferRequest({ recipient: MVINES, amountBaseUnits: 10_000n, decimals: 6, splToken: USDC, references: [] })).toBe(
      `solana:${MVINES}?amount=0.01&spl-token=${USDC}`,
    );
  });

  it.each([
    { baseUnits: 1n, decimals: 9, amount: '0.000000001' }, // one lamport
    { baseUnits: 1_234_567_891_000n, decimals: 6, amount: '1234567.891' },
    { baseUnits: 1_500_000_000n, decimals: 9, amount: '1.5' }, // no trailing zeros
    { baseUnits: 0n, decimals: 9, amount: '0' },
    { baseUnits: 18_446_744_073_709_551_615n, decimals: 9, amount: '18446744073.709551615' }, // u64::MAX lamports
    { baseUnits: 10n ** 30n, decimals: 0, amount: '1000000000000000000000000000000' }, // never 1e+30
    { baseUnits: 5n, decimals: 18, amount: '0.000000000000000005' }, // never 5e-18
  ])('writes $baseUnits base units with $decimals decimals as $amount', ({ baseUnits, decimals, amount }) => {
    const uri = solanaPayTransferRequest({ recipient: MVINES, amountBaseUnits: baseUnits, decimals, references: [] });
    expect(uri).toBe(`solana:${MVINES}?amount=${amount}`);
    const parsed = parseSolanaPayTransferRequest(uri, { decimals });
    expect(parsed).toMatchObject({ ok: true, request: { amount, amountBaseUnits: baseUnits } });
  });

  it('repeats reference in the given order, between spl-token and label', () => {
    const uri = solanaPayTransferRequest({
      recipient: MVINES,
      amountBaseUnits: 1n,
      decimals: 6,
      splToken: USDC,
      references: [REF_B, REF_A],
      label: 'Shop',
    });
    expect(uri).toBe(`solana:${MVINES}?amount=0.000001&spl-token=${USDC}&reference=${REF_B}&reference=${REF_A}&label=Shop`);
    expect(parseSolanaPayTransferRequest(uri)).toMatchObject({ ok: true, request: { references: [REF_B, REF_A] } });
  });

  it('URL-encodes text with encodeURIComponent (space as %20, + kept as a plus)', () => {
    const uri = solanaPayTransferRequest({
      recipient: MVINES,
      amountBaseUnits: 1n,
      decimals: 9,
      references: [REF_A],
      label: 'Café ☕ & Co',
      message: 'a+b=c #1 100%',
      memo: 'ch_123?x=1',
    });
    expect(uri).toContain('label=Caf%C3%A9%20%E2%98%95%20%26%20Co');
    expect(uri).toContain('message=a%2Bb%3Dc%20%231%20100%25');
    expect(uri).toContain('memo=ch_123%3Fx%3D1');
    expect(parseSolanaPayTransferRequest(uri)).toEqual({
      ok: true,
      request: {
        recipient: MVINES,
        amount: '0.000000001',
        references: [REF_A],
        label: 'Café ☕ & Co',
        message: 'a+b=c #1 100%',
        memo: 'ch_123?x=1',
      },
    });
  });

  it('leaves out empty text fields', () => {
    expect(solanaPayTransferRequest({ recipient: MVINES, amountBaseUnits: 1n, decimals: 0, references: [], label: '', memo: '' })).toBe(
      `solana:${MVINES}?amount=1`,
    );
  });

  it('refuses malformed input', () => {
    const base = { recipient: MVINES, amountBaseUnits: 1n, decimals: 9, references: [] };
    expect(() => solanaPayTransferRequest({ ...base, recipient: 'not-an-address' })).toThrow(/recipient/);
    expect(() => solanaPayTransferRequest({ ...base, splToken: '0xdeadbeef' })).toThrow(/splToken/);
    expect(() => solanaPayTransferRequest({ ...base, references: ['abc'] })).toThrow(/reference/);
    expect(() => solanaPayTransferRequest({ ...base, amountBaseUnits: -1n })).toThrow(/negative/);
    expect(() => solanaPayTransferRequest({ ...base, decimals: 1.5 })).toThrow(/decimals/);
  });

  it('round-trips any amount, references and text', () => {
    const addressArb = fc.constantFrom(MVINES, USDC, REF_A, REF_B);
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }),
        fc.integer({ min: 0, max: 18 }),
        fc.array(addressArb, { maxLength: 4 }),
        fc.option(addressArb, { nil: undefined }),
        fc.string({ unit: 'grapheme', minLength: 1 }),
        (amountBaseUnits, decimals, references, splToken, label) => {
          const uri = solanaPayTransferRequest({
            recipient: MVINES,
            amountBaseUnits,
            decimals,
            references,
            label,
            ...(splToken ? { splToken } : {}),
          });
          const parsed = parseSolanaPayTransferRequest(uri, { decimals });
          if (!parsed.ok) throw new Error(`${uri} did not parse: ${parsed.reason}`);
          expect(parsed.request.amountBaseUnits).toBe(amountBaseUnits);
          expect(parsed.request.amount).toMatch(/^(0|[1-9]\d*)(\.\d*[1-9])?$/); // no exponent, no trailing zero
          expect(parsed.request.references).toEqual(references);
          expect(parsed.request.splToken).toBe(splToken);
          expect(parsed.request.label).toBe(label);
        },
      ),
    );
  });
});

describe('parseSolanaPayTransferRequest', () => {
  it('reads the spec examples', () => {
    expect(
      parseSolanaPayTransferRequest(`solana:${MVINES}?amount=1&label=Michael&message=Thanks%20for%20all%20the%20fish&memo=OrderId12345`),
    ).toEqual({
      ok: true,
      request: {
        recipient: MVINES,
        amount: '1',
        references: [],
        label: 'Michael',
        message: 'Thanks for all the fish',
        memo: 'OrderId12345',
      },
    });
    expect(parseSolanaPayTransferRequest(`solana:${MVINES}?amount=0.01&spl-token=${USDC}`, { decimals: 6 })).toEqual({
      ok: true,
      request: { recipient: MVINES, amount: '0.01', amountBaseUnits: 10_000n, splToken: USDC, references: [] },
    });
    // No amount: the wallet asks the payer.
    expect(parseSolanaPayTransferRequest(`solana:${MVINES}?label=Michael`)).toEqual({
      ok: true,
      request: { recipient: MVINES, references: [], label: 'Michael' },
    });
  });

  it.each([
    ['ethereum:0x0000000000000000000000000000000000000000', 'format'],
    ['solana:https://example.com/solana-pay', 'not_a_transfer_request'],
    ['solana:https%3A%2F%2Fexample.com%2Fsolana-pay%3Forder%3D12345', 'not_a_transfer_request'],
    ['solana:notbase58!', 'recipient_invalid'],
    [`solana:${MVINES}?amount=1e-9`, 'amount_invalid'], // scientific notation is prohibited
    [`solana:${MVINES}?amount=.5`, 'amount_invalid'], // a leading 0 is required
    [`solana:${MVINES}?amount=-1`, 'amount_invalid'],
    [`solana:${MVINES}?amount=1&amount=2`, 'duplicate_field'],
    [`solana:${MVINES}?label=a&label=b`, 'duplicate_field'],
    [`solana:${MVINES}?spl-token=xyz`, 'spl_token_invalid'],
    [`solana:${MVINES}?reference=${REF_A}&reference=short`, 'reference_invalid'],
    [`solana:${MVINES}?label=%E0%A4%A`, 'format'],
  ])('refuses %s (%s)', (uri, reason) => {
    expect(parseSolanaPayTransferRequest(uri)).toEqual({ ok: false, reason });
  });

  it('refuses more decimal places than the token has', () => {
    expect(parseSolanaPayTransferRequest(`solana:${MVINES}?amount=0.0000001&spl-token=${USDC}`, { decimals: 6 })).toEqual({
      ok: false,
      reason: 'too_many_decimals',
    });
    expect(parseSolanaPayTransferRequest(`solana:${MVINES}?amount=0.0000000001`, { decimals: 9 })).toEqual({
      ok: false,
      reason: 'too_many_decimals',
    });
  });
});
