import { describe, expect, it } from 'vitest';
import { countryFromRequest, countryOptions } from './country';

const headers = (values: Record<string, string>) => new Headers(values);

describe('consumer country', () => {
  it('prefers the remembered choice, then edge geolocation, then the language region, then US', () => {
    expect(countryFromRequest(headers({ 'cf-ipcountry': 'DE', 'accept-language': 'fr-FR' }), 'br')).toEqual({
      country: 'BR',
      source: 'cookie',
    });
    expect(countryFromRequest(headers({ 'cf-ipcountry': 'DE', 'accept-language': 'fr-FR' }), undefined)).toEqual({
      country: 'DE',
      source: 'geo',
    });
    expect(countryFromRequest(headers({ 'x-vercel-ip-country': 'jp' }), undefined)).toEqual({ country: 'JP', source: 'geo' });
    expect(countryFromRequest(headers({ 'accept-language': 'en;q=0.9, pt-BR;q=0.8' }), undefined)).toEqual({
      country: 'BR',
      source: 'language',
    });
    expect(countryFromRequest(headers({}), undefined)).toEqual({ country: 'US', source: 'default' });
  });

  it('ignores values that are not a known ISO country (Cloudflare sends XX and T1 for unknown and Tor)', () => {
    expect(countryFromRequest(headers({ 'cf-ipcountry': 'XX' }), 'ZZ').source).toBe('default');
    expect(countryFromRequest(headers({ 'cf-ipcountry': 'T1' }), 'evil; Path=/').source).toBe('default');
  });

  it('lists every country by name for the selector', () => {
    const options = countryOptions();
    expect(options.length).toBeGreaterThan(200);
    expect(options.find((o) => o.code === 'DE')?.name).toBe('Germany');
    expect(options.map((o) => o.name)).toEqual([...options.map((o) => o.name)].sort((a, b) => a.localeCompare(b)));
  });
});
