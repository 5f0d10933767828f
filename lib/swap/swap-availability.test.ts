import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CHAINS } from '@/lib/chains/registry';
import { resetEnvCache } from '@/lib/env';
import { createTestCharge, newMerchant, serveChainsWithoutNode } from '@/test/fixtures';
import { LOCAL_SWAP_ADDRESSES } from '@/lib/chains/provision-local-swap';
import { assertSwapOffered, assertSwapProvider, swapAvailability } from './swap-availability';
import { complianceCountryFrom } from '@/lib/geo/compliance-country';
import { switchToPrivateDatabase } from '@/test/private-database';
import { appError } from '@/test/accounts';

const PZP = LOCAL_SWAP_ADDRESSES.pzp;
const saved = {
  LOCAL_CHAINS: process.env.LOCAL_CHAINS,
  PZP: process.env.PZP_BSC_TOKEN_ADDRESS,
  ROUTER: process.env.BSC_SWAP_ROUTER_ADDRESS,
};

// Its own database: the provider registry rows are the reviewed file's, whatever other files insert.
beforeAll(() => switchToPrivateDatabase('swap_test'));

beforeEach(() => {
  // A deployment whose BSC is the local node: the demo PZP and router are the configured pair.
  process.env.LOCAL_CHAINS = 'BSC,POLYGON,POLYGON_AMOY';
  delete process.env.PZP_BSC_TOKEN_ADDRESS;
  delete process.env.BSC_SWAP_ROUTER_ADDRESS;
  resetEnvCache();
});

afterEach(() => {
  for (const [name, value] of [
    ['LOCAL_CHAINS', saved.LOCAL_CHAINS],
    ['PZP_BSC_TOKEN_ADDRESS', saved.PZP],
    ['BSC_SWAP_ROUTER_ADDRESS', saved.ROUTER],
  ] as const) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  resetEnvCache();
});

describe('swap on-ramp availability (provider registry facts)', () => {
  it('is refused in the United States, with the reason to show', async () => {
    const result = await swapAvailability({ country: 'US', complianceCountry: 'US', chain: 'BSC', tokenAddress: PZP });
    expect(result).toMatchObject({ available: false, code: 'united_states' });
    expect(!result.available && result.reason).toContain('not available in the United States');
    expect(() => assertSwapOffered(result)).toThrow(/not available in the United States/);
  });

  it('outside the United States offers the one provider that sells USDC on BSC there; the others say why not', async () => {
    const result = await swapAvailability({ country: 'DE', complianceCountry: 'DE', chain: 'BSC', tokenAddress: PZP.toLowerCase() });
    if (!result.available) throw new Error(result.reason);
    expect(result.pair.target.symbol).toBe('PZP');
    expect(result.onramp.available).toBe(true);
    const transak = result.onramp.providers.find((p) => p.providerId === 'transak')!;
    const moonpay = result.onramp.providers.find((p) => p.providerId === 'moonpay')!;
    expect(transak).toMatchObject({ available: true, methods: expect.arrayContaining(['card']) });
    expect(moonpay).toMatchObject({ available: false, reason: 'Not for this swap: only Transak supports BNB Smart Chain in Germany.' });
    expect(assertSwapProvider(result, 'transak').target.address).toBe(PZP);
    expect(() => assertSwapProvider(result, 'moonpay')).toThrow('only Transak supports BNB Smart Chain in Germany');
  });

  it('where no provider sells USDC on BSC, only the held-funds branch remains', async () => {
    const result = await swapAvailability({ country: 'CN', complianceCountry: 'CN', chain: 'BSC', tokenAddress: PZP });
    if (!result.available) throw new Error(result.reason);
    expect(result.onramp).toMatchObject({
      available: false,
      reason: expect.stringContaining('No on-ramp provider sells USDC on BNB Smart Chain in China'),
    });
    expect(() => assertSwapProvider(result, 'transak')).toThrow(/No on-ramp provider/);
    expect(assertSwapOffered(result).target.symbol).toBe('PZP');
  });

  it('the US rule reads the server-side location: a non-US selector does not unlock it, an unknown location refuses', async () => {
    const selectorSaysGermany = await swapAvailability({ country: 'DE', complianceCountry: 'US', chain: 'BSC', tokenAddress: PZP });
    expect(selectorSaysGermany).toMatchObject({ available: false, code: 'united_states' });
    const unknown = await swapAvailability({ country: 'DE', complianceCountry: null, chain: 'BSC', tokenAddress: PZP });
    expect(unknown).toMatchObject({ available: false, code: 'location_unknown' });
    expect(() => assertSwapOffered(unknown)).toThrow(/could not confirm where you are/);
    // The selector still picks the providers: a US visitor abroad choosing Germany sees Germany's.
    const abroad = await swapAvailability({ country: 'DE', complianceCountry: 'FR', chain: 'BSC', tokenAddress: PZP });
    expect(abroad.available && abroad.onramp.providers.find((p) => p.providerId === 'transak')?.available).toBe(true);
  });

  it('is only for the configured pairs', async () => {
    const usdt = CHAINS.BSC.tokens.find((t) => t.symbol === 'USDT')!.address;
    expect(await swapAvailability({ country: 'DE', complianceCountry: 'DE', chain: 'BSC', tokenAddress: usdt })).toMatchObject({
      available: false,
      code: 'not_a_swap_pair',
    });
    expect(await swapAvailability({ country: 'DE', complianceCountry: 'DE', chain: 'POLYGON', tokenAddress: PZP })).toMatchObject({
      available: false,
      code: 'not_a_swap_pair',
    });
  });
});

describe('createCharge and the swap pair token', () => {
  it('accepts PZP on BSC (direct transfer), refuses it in test mode and where the pair is not configured', async () => {
    serveChainsWithoutNode('BSC', 'BSC_TESTNET');
    const merchant = await newMerchant({ verified: true });
    const body = {
      chargeData: {
        symbol: 'PZP',
        chain: 'BSC',
        tokenAddress: PZP,
        amount: '42.5',
        toAddress: '0x000000000000000000000000000000000000bEEF',
      },
      isDirectTransfer: true,
    };
    const ok = await createTestCharge({ apiKey: merchant.liveKey!, body });
    expect(ok.charge).toMatchObject({ tokenSymbol: 'PZP', isDirectTransfer: true });

    const test = await appError(
      createTestCharge({ apiKey: merchant.testKey, body: { chargeData: { symbol: 'PZP', chain: 'BSC', tokenAddress: PZP, amount: '1' } } }),
    );
    expect(test).toMatchObject({ code: 'unsupported_token' });

    // A real BSC (not local) without PZP_BSC_TOKEN_ADDRESS: PZP is unknown.
    process.env.LOCAL_CHAINS = 'POLYGON,POLYGON_AMOY';
    resetEnvCache();
    const unconfigured = await appError(createTestCharge({ apiKey: merchant.liveKey!, body }));
    expect(unconfigured).toMatchObject({ code: 'unsupported_token', param: 'chargeData.tokenAddress' });
  });

  it("an unknown token on BSC is refused with the known tokens listed, PZP's address among them", async () => {
    serveChainsWithoutNode('BSC');
    const merchant = await newMerchant({ verified: true });
    const unknown = await appError(
      createTestCharge({
        apiKey: merchant.liveKey!,
        body: { chargeData: { symbol: 'XYZ', chain: 'BSC', tokenAddress: '0x000000000000000000000000000000000000dEaD', amount: '1' } },
      }),
    );
    expect(unknown).toMatchObject({ code: 'unsupported_token', param: 'chargeData.tokenAddress' });
    expect(unknown.message).toContain(`PZP (${PZP})`);
    expect(unknown.message).toContain('USDC (0x8AC76a51cc950d9822D68b83fE1Ad97B32Cd580d)');
  });
});

describe('the server-side location (COMPLIANCE_COUNTRY_HEADER)', () => {
  afterEach(() => {
    delete process.env.COMPLIANCE_COUNTRY_HEADER;
    resetEnvCache();
  });
  const request = (entries: Record<string, string>) => new Headers(entries);

  it('is unknown unless the header is configured: a client-sent CDN header is ignored', () => {
    delete process.env.COMPLIANCE_COUNTRY_HEADER;
    resetEnvCache();
    expect(complianceCountryFrom(request({ 'cf-ipcountry': 'DE', 'x-vercel-ip-country': 'DE' }))).toBeNull();
  });

  it('with the header configured, only that header counts, and only a known country code', () => {
    process.env.COMPLIANCE_COUNTRY_HEADER = 'CF-IPCountry';
    resetEnvCache();
    expect(complianceCountryFrom(request({ 'cf-ipcountry': 'us' }))).toBe('US');
    expect(complianceCountryFrom(request({ 'x-vercel-ip-country': 'DE' }))).toBeNull();
    // Cloudflare answers XX / T1 when it cannot tell: unknown.
    expect(complianceCountryFrom(request({ 'cf-ipcountry': 'XX' }))).toBeNull();
    expect(complianceCountryFrom(request({ 'cf-ipcountry': 'T1' }))).toBeNull();
  });
});
