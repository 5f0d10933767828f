import { describe, expect, it } from 'vitest';
import { ConfigError, parseEnv } from './env';

describe('configuration', () => {
  it('applies defaults', () => {
    const config = parseEnv({});
    expect(config.APP_URL).toBe('http://localhost:3000');
    expect(config.CHARGE_EXPIRY_MINUTES).toBe(60);
    expect(config.DATABASE_URL).toBeUndefined();
    expect(config.RUN_JOBS_IN_WEB).toBe(true);
  });

  it('names the variable and the problem on a bad value', () => {
    expect(() => parseEnv({ CHARGE_EXPIRY_MINUTES: 'soon' })).toThrow(ConfigError);
    expect(() => parseEnv({ CHARGE_EXPIRY_MINUTES: 'soon' })).toThrow(/CHARGE_EXPIRY_MINUTES/);
    expect(() => parseEnv({ RPC_URL_POLYGON: 'not a url' })).toThrow(/RPC_URL_POLYGON/);
    expect(() => parseEnv({ RUN_JOBS_IN_WEB: 'maybe' })).toThrow(/RUN_JOBS_IN_WEB/);
  });

  it('treats an empty RPC URL as unset', () => {
    expect(parseEnv({ RPC_URL_POLYGON: '' }).RPC_URL_POLYGON).toBeUndefined();
    expect(parseEnv({ RPC_URL_POLYGON: 'https://polygon.example/rpc' }).RPC_URL_POLYGON).toBe('https://polygon.example/rpc');
  });
});
