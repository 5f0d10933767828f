import { describe, expect, it } from 'vitest';
import { ConfigError, parseEnv, resetEnvCache, rpcWsUrl } from './env';

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

  it('reads DEPOSIT_ADDRESS_REUSE_AFTER as a duration (default 7 days, 0 allowed) and refuses a bare number', () => {
    expect(parseEnv({}).DEPOSIT_ADDRESS_REUSE_AFTER).toBe(7 * 86_400_000);
    expect(parseEnv({}).DEPOSIT_ADDRESS_REUSE).toBe(true);
    expect(parseEnv({ DEPOSIT_ADDRESS_REUSE_AFTER: '0' }).DEPOSIT_ADDRESS_REUSE_AFTER).toBe(0);
    expect(parseEnv({ DEPOSIT_ADDRESS_REUSE_AFTER: '90s' }).DEPOSIT_ADDRESS_REUSE_AFTER).toBe(90_000);
    expect(parseEnv({ DEPOSIT_ADDRESS_REUSE_AFTER: '30m' }).DEPOSIT_ADDRESS_REUSE_AFTER).toBe(1_800_000);
    expect(parseEnv({ DEPOSIT_ADDRESS_REUSE_AFTER: '12h' }).DEPOSIT_ADDRESS_REUSE_AFTER).toBe(43_200_000);
    expect(() => parseEnv({ DEPOSIT_ADDRESS_REUSE_AFTER: '10' })).toThrow(/DEPOSIT_ADDRESS_REUSE_AFTER/);
    expect(parseEnv({ DEPOSIT_ADDRESS_REUSE: 'false' }).DEPOSIT_ADDRESS_REUSE).toBe(false);
  });

  it('allows webhook loopback by default outside production only', () => {
    expect(parseEnv({}).WEBHOOKS_ALLOW_LOOPBACK).toBe(true);
    expect(parseEnv({ WEBHOOKS_ALLOW_LOOPBACK: 'false' }).WEBHOOKS_ALLOW_LOOPBACK).toBe(false);
    expect(() => parseEnv({ WEBHOOKS_ALLOW_LOOPBACK: 'yes' })).toThrow(/WEBHOOKS_ALLOW_LOOPBACK/);
    const production = {
      NODE_ENV: 'production',
      AUTH_SECRET: 'a'.repeat(32),
      PIN_PEPPER: 'p'.repeat(32),
      WALLET_MASTER_KEY: Buffer.alloc(32).toString('base64'),
      DEPOSIT_HD_SEED: Buffer.alloc(32).toString('base64'),
      SMTP_URL: 'smtp://mail.example',
    };
    expect(parseEnv(production).WEBHOOKS_ALLOW_LOOPBACK).toBe(false);
    expect(parseEnv({ ...production, WEBHOOKS_ALLOW_LOOPBACK: 'true' }).WEBHOOKS_ALLOW_LOOPBACK).toBe(true);
    // The test helpers follow the same default: off in production unless turned on.
    expect(parseEnv({}).TEST_HELPERS_ENABLED).toBe(true);
    expect(parseEnv(production).TEST_HELPERS_ENABLED).toBe(false);
    expect(parseEnv({ ...production, TEST_HELPERS_ENABLED: 'true' }).TEST_HELPERS_ENABLED).toBe(true);
    expect(() => parseEnv({ TEST_HELPERS_PAYER_KEY: '0x1234' })).toThrow(/TEST_HELPERS_PAYER_KEY/);
  });

  it('starts local chain nodes by default outside production only; in production LOCAL_CHAINS needs LOCAL_CHAIN_NODES=true', () => {
    const production = {
      NODE_ENV: 'production',
      AUTH_SECRET: 'a'.repeat(32),
      PIN_PEPPER: 'p'.repeat(32),
      WALLET_MASTER_KEY: Buffer.alloc(32).toString('base64'),
      DEPOSIT_HD_SEED: Buffer.alloc(32).toString('base64'),
      SMTP_URL: 'smtp://mail.example',
    };
    expect(parseEnv({}).LOCAL_CHAIN_NODES).toBe(true);
    expect(parseEnv({ LOCAL_CHAIN_NODES: 'false' }).LOCAL_CHAIN_NODES).toBe(false);
    expect(parseEnv(production).LOCAL_CHAIN_NODES).toBe(false);
    expect(parseEnv({ ...production, LOCAL_CHAIN_NODES: 'true' }).LOCAL_CHAIN_NODES).toBe(true);
    expect(() => parseEnv({ LOCAL_CHAIN_NODES: 'yes' })).toThrow(/LOCAL_CHAIN_NODES/);
    // LOCAL_CHAINS lowers confirmations to 1: never on a production that did not ask for local nodes.
    expect(() => parseEnv({ ...production, LOCAL_CHAINS: 'POLYGON' })).toThrow(/LOCAL_CHAINS: .*LOCAL_CHAIN_NODES/);
    expect(parseEnv({ ...production, LOCAL_CHAINS: 'POLYGON', LOCAL_CHAIN_NODES: 'true' }).LOCAL_CHAINS).toEqual(['POLYGON']);
  });

  it('production needs SMTP; SMS only for the optional phone: without a provider it starts with phone linking off', () => {
    const production = {
      NODE_ENV: 'production',
      AUTH_SECRET: 'a'.repeat(32),
      PIN_PEPPER: 'p'.repeat(32),
      WALLET_MASTER_KEY: Buffer.alloc(32).toString('base64'),
      DEPOSIT_HD_SEED: Buffer.alloc(32).toString('base64'),
      SMTP_URL: 'smtp://mail.example',
    };
    const twilio = { TWILIO_ACCOUNT_SID: 'AC123', TWILIO_AUTH_TOKEN: 'token', TWILIO_FROM: '+15005550006' };
    expect(parseEnv({}).SMS_PROVIDER).toBe('dev');
    expect(parseEnv(production).SMS_PROVIDER).toBe('none');
    expect(parseEnv({ ...production, SMS_PROVIDER: 'none' }).SMS_PROVIDER).toBe('none');
    expect(parseEnv({ ...production, SMS_PROVIDER: 'twilio', ...twilio }).SMS_PROVIDER).toBe('twilio');
    // Twilio without its settings is refused at start, naming each missing one, in any mode.
    expect(() => parseEnv({ ...production, SMS_PROVIDER: 'twilio' })).toThrow(
      /TWILIO_ACCOUNT_SID: is required with SMS_PROVIDER=twilio\n  TWILIO_AUTH_TOKEN: .*\n  TWILIO_FROM: /,
    );
    expect(() => parseEnv({ SMS_PROVIDER: 'twilio', ...twilio, TWILIO_FROM: '' })).toThrow(/TWILIO_FROM: is required/);
    // The dev outbox keeps codes on disk: never in production unless an end-to-end test asks for it.
    expect(() => parseEnv({ ...production, SMS_PROVIDER: 'dev' })).toThrow(/SMS_PROVIDER: dev .* refused in production/);
    expect(parseEnv({ ...production, SMS_PROVIDER: 'dev', ALLOW_DEV_OUTBOX: 'true' }).SMS_PROVIDER).toBe('dev');
    // Sign-in codes go by e-mail: SMTP stays required.
    expect(() => parseEnv({ ...production, SMTP_URL: undefined })).toThrow(/SMTP_URL: is required in production/);
    expect(() => parseEnv({ ...production, SMS_PROVIDER: 'sms' })).toThrow(/SMS_PROVIDER/);
  });

  it('treats an empty RPC URL as unset', () => {
    expect(parseEnv({ RPC_URL_POLYGON: '' }).RPC_URL_POLYGON).toBeUndefined();
    expect(parseEnv({ RPC_URL_POLYGON: 'https://polygon.example/rpc' }).RPC_URL_POLYGON).toBe('https://polygon.example/rpc');
  });

  it('takes a ws:// or wss:// RPC_WS_URL_<CHAIN>, else a local node’s own port, else none', () => {
    expect(() => parseEnv({ RPC_WS_URL_POLYGON: 'https://polygon.example/rpc' })).toThrow(/RPC_WS_URL_POLYGON: must be a ws/);
    const saved = { ...process.env };
    try {
      Object.assign(process.env, {
        RPC_WS_URL_POLYGON: 'wss://polygon.example/ws',
        RPC_URL_BSC: 'http://127.0.0.1:8545',
        RPC_URL_POLYGON_AMOY: 'https://amoy.example/rpc',
        RPC_WS_URL_POLYGON_AMOY: '',
        LOCAL_CHAINS: 'BSC',
        LOCAL_CHAIN_NODES: 'true',
      });
      resetEnvCache();
      expect(rpcWsUrl('POLYGON')).toBe('wss://polygon.example/ws');
      expect(rpcWsUrl('BSC')).toBe('ws://127.0.0.1:8545');
      // A configured HTTP RPC without a WebSocket URL: polling only.
      expect(rpcWsUrl('POLYGON_AMOY')).toBeUndefined();
    } finally {
      process.env = saved;
      resetEnvCache();
    }
  });
});
