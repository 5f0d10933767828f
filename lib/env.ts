/**
 * The one place that reads environment variables. Every variable is validated with zod on first use
 * and a bad value stops the process with a message that names the variable and what to fix.
 * `.env.example` documents each one.
 */
import 'server-only';
import { z } from 'zod';
import { CHAIN_NAMES, type ChainName } from './chains/registry';

const optionalUrl = z
  .string()
  .trim()
  .transform((value) => (value === '' ? undefined : value))
  .pipe(z.url({ protocol: /^(https?|wss?|postgres(ql)?)$/ }).optional())
  .optional();

const rpcEndpoint = z.url({ protocol: /^(https?|wss?)$/ });
/** One RPC URL, or several separated by commas: the first is used, the next ones when it fails (lib/chains/clients.ts). */
const optionalUrlList = z
  .string()
  .transform((value) => {
    const parts = value
      .split(',')
      .map((part) => part.trim())
      .filter((part) => part !== '');
    return parts.length ? parts.join(',') : undefined;
  })
  .pipe(
    z
      .string()
      .refine(
        (value) => value.split(',').every((part) => rpcEndpoint.safeParse(part).success),
        'must be a URL, or several URLs separated by commas (tried in that order)',
      )
      .optional(),
  )
  .optional();

const base64Key = z
  .string()
  .refine((value) => Buffer.from(value, 'base64').length === 32, 'must be 32 bytes, base64 (e.g. `openssl rand -base64 32`)');

const rpcEnvEntries = Object.fromEntries(CHAIN_NAMES.map((chain) => [rpcEnvName(chain), optionalUrlList])) as Record<
  string,
  typeof optionalUrlList
>;

/** RPC_WS_URL_<CHAIN>: one ws:// or wss:// URL whose new-block (EVM) or new-slot (Solana) subscription wakes the chain's watcher. */
const optionalWsUrl = z
  .string()
  .trim()
  .transform((value) => (value === '' ? undefined : value))
  .pipe(z.url({ protocol: /^wss?$/, error: 'must be a ws:// or wss:// URL' }).optional())
  .optional();
const rpcWsEnvEntries = Object.fromEntries(CHAIN_NAMES.map((chain) => [rpcWsEnvName(chain), optionalWsUrl])) as Record<
  string,
  typeof optionalWsUrl
>;

const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  /** PostgreSQL connection string. Unset: the launcher starts an embedded PostgreSQL and sets it. */
  DATABASE_URL: optionalUrl,
  /** Where the app is reached; paymentUrl and links are built from it. */
  APP_URL: z.url().default('http://localhost:3000'),
  /** Base of the hosted checkout (defaults to APP_URL). */
  CHECKOUT_URL: optionalUrl,
  /**
   * WalletConnect Cloud project id: the checkout offers WalletConnect (phone wallets by QR code) beside the
   * browser wallet. Unset: no WalletConnect button. Read at request time, so no rebuild is needed.
   */
  WALLETCONNECT_PROJECT_ID: z
    .string()
    .trim()
    .transform((value) => (value === '' ? undefined : value))
    .pipe(
      z
        .string()
        .regex(/^[0-9a-f]{32}$/i, 'must be the 32-character project id from WalletConnect Cloud (cloud.reown.com)')
        .optional(),
    )
    .optional(),
  /** Data directory of the embedded services (PostgreSQL cluster, local chain state, runtime file). */
  DATA_DIR: z.string().default('.data'),
  /** Minutes a charge stays payable. */
  CHARGE_EXPIRY_MINUTES: z.coerce
    .number()
    .int()
    .min(5)
    .max(7 * 24 * 60)
    .default(60),
  /**
   * EVM deposit addresses are reused through a per-merchant pool (docs/adr/0038-deposit-addresses-reused.md):
   * 'false' gives every charge a fresh address, as before.
   */
  DEPOSIT_ADDRESS_REUSE: z
    .enum(['true', 'false'])
    .default('true')
    .transform((value) => value === 'true'),
  /**
   * How long a released deposit address rests in its merchant's pool before a new charge may lease it:
   * a number with s, m, h or d (default 7d; 0 for tests and benchmarks). Milliseconds after parsing.
   */
  DEPOSIT_ADDRESS_REUSE_AFTER: z
    .string()
    .regex(/^(0|\d+(s|m|h|d))$/, 'a duration such as 7d, 12h, 30m, 90s or 0')
    .default('7d')
    .transform((value) => {
      const unit = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[value.slice(-1)] ?? 0;
      return unit === 0 ? 0 : Number(value.slice(0, -1)) * unit;
    }),
  /**
   * Requests per minute allowed for one API key: 6,000 (100 a second, Stripe's live-mode limit), so a popular
   * game's launch-day traffic is not refused; a leaked key is still bounded, publishable ones also per IP.
   */
  API_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(6000),
  /** Event streams (GET /api/events/stream) open at once per API key; one more answers 429 too_many_streams (N9). */
  EVENT_STREAMS_PER_KEY: z.coerce.number().int().min(1).default(5),
  /** Event streams open at once per merchant, all its keys and both modes together. */
  EVENT_STREAMS_PER_MERCHANT: z.coerce.number().int().min(1).default(20),
  /**
   * Seconds an instance may keep an API key, its merchant and token rules in memory. Changes reach
   * every instance at once anyway (PostgreSQL NOTIFY); this bounds staleness if that ever failed. 0 = no cache.
   */
  API_KEY_CACHE_SECONDS: z.coerce.number().int().min(0).max(3600).default(60),
  /** Largest accepted JSON request body, in bytes. */
  API_MAX_BODY_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(1024 * 1024)
    .default(64 * 1024),
  /** Connections in this process's PostgreSQL pool. */
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(100).default(10),
  /** Connections in the pool of a jobs process (`npm run worker`, and the worker `npm start` starts). */
  WORKER_DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(100).default(5),
  /** A statement running longer is cancelled by PostgreSQL (0 = no limit). Migrations and backups are not bound by it. */
  DATABASE_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(0).default(30_000),
  /** A transaction left idle this long is ended by PostgreSQL, releasing its locks (0 = no limit). */
  DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: z.coerce.number().int().min(0).default(60_000),
  /**
   * Run background jobs (charge expiry, …) in the web process. Set false when a separate worker runs them;
   * `npm start` sets it false for its web server and starts a worker beside it.
   */
  RUN_JOBS_IN_WEB: z
    .enum(['true', 'false'])
    .default('true')
    .transform((value) => value === 'true'),
  /** `npm start` also starts one worker process (`npm run worker`). false on web instances when workers run elsewhere. */
  START_WORKER: z
    .enum(['true', 'false'])
    .default('true')
    .transform((value) => value === 'true'),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
  /** OTLP/HTTP collector (e.g. http://otel-collector:4318): traces are exported there. Unset: no tracing. */
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url().optional(),
  /** The traces' service.name. */
  OTEL_SERVICE_NAME: z.string().min(1).default('chargeport'),
  /** Bearer token of GET /api/metrics (Prometheus). Unset: the endpoint answers 404. */
  METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters (e.g. `openssl rand -hex 24`)').optional(),
  /** A worker serves its own metrics on this port (GET /metrics, same token). Unset: none. */
  WORKER_METRICS_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  /**
   * Reverse proxies in front of the app that append to X-Forwarded-For (lib/http/client-ip.ts). 0: the
   * socket's peer is the client and forwarded headers are ignored.
   */
  TRUSTED_PROXY_HOPS: z.coerce.number().int().min(0).max(10).default(0),
  /** A CDN's client-IP header (e.g. cf-connecting-ip), believed when present. Only when the origin is reachable through the CDN alone. */
  CLIENT_IP_HEADER: z
    .string()
    .trim()
    .toLowerCase()
    .transform((value) => value || undefined)
    .pipe(
      z
        .string()
        .regex(/^[a-z0-9-]+$/, 'must be a header name such as cf-connecting-ip')
        .refine((name) => name !== 'x-forwarded-for', 'x-forwarded-for is a chain: use TRUSTED_PROXY_HOPS instead')
        .optional(),
    )
    .optional(),
  /**
   * Open checkout event streams (GET /api/checkout/{chargeId}/events) one client IP may hold per server
   * process; past it the checkout polls instead. High enough for players sharing a carrier's address.
   */
  CHECKOUT_STREAMS_PER_IP: z.coerce.number().int().min(1).max(100_000).default(50),
  /**
   * The CDN header that carries the client's country as the edge geolocated it (e.g. cf-ipcountry,
   * x-vercel-ip-country): the location compliance rules use (lib/geo/compliance-country.ts). Unset: the
   * location is unknown and location-restricted flows (the swap on-ramp) are not offered.
   */
  COMPLIANCE_COUNTRY_HEADER: z
    .string()
    .trim()
    .toLowerCase()
    .transform((value) => value || undefined)
    .pipe(
      z
        .string()
        .regex(/^[a-z0-9-]+$/, 'must be a header name such as cf-ipcountry')
        .optional(),
    )
    .optional(),
  /**
   * `npm run dev` seeds the demo merchant (public, fixed keys) only into the embedded or a loopback
   * database; true seeds into any DATABASE_URL, false never seeds (lib/merchants/demo-seed-refusal.ts).
   */
  SEED_DEMO: z
    .enum(['true', 'false'])
    .optional()
    .transform((value) => (value === undefined ? undefined : value === 'true')),
  /** Sign-in / code requests allowed per client IP per 10 minutes. */
  AUTH_RATE_LIMIT_PER_IP: z.coerce.number().int().min(1).default(30),
  /** Wrong one-time codes accepted per e-mail address or phone number over 24 hours (then none until the day has passed). */
  CODE_WRONG_PER_DAY: z.coerce.number().int().min(5).default(20),
  /** SMS codes per account per hour, per client IP per hour, and per country calling code per hour (against SMS pumping). */
  SMS_PER_USER_PER_HOUR: z.coerce.number().int().min(1).default(5),
  SMS_PER_IP_PER_HOUR: z.coerce.number().int().min(1).default(10),
  SMS_PER_COUNTRY_PER_HOUR: z.coerce.number().int().min(1).default(200),
  /** Countries (ISO 3166 alpha-2, comma-separated) whose numbers may receive SMS. Unset: all. */
  SMS_ALLOWED_COUNTRIES: z
    .string()
    .optional()
    .transform((value) => {
      const list = (value ?? '')
        .split(',')
        .map((code) => code.trim().toUpperCase())
        .filter(Boolean);
      return list.length ? list : undefined;
    })
    .pipe(z.array(z.string().regex(/^[A-Z]{2}$/, 'must be two-letter country codes such as FR,DE,US')).optional()),
  /** Hours a newly added owner (invited as owner, or promoted) waits before withdrawing. 0: no hold. */
  OWNER_WITHDRAWAL_HOLD_HOURS: z.coerce.number().int().min(0).max(720).default(48),
  /** Hours a new passkey or authenticator app waits before it confirms live money moves and ownership changes. 0: no wait. */
  FACTOR_COOLING_HOURS: z.coerce.number().int().min(0).max(720).default(24),
  /** Open (pending) charges one merchant may have per mode created with publishable keys (secret keys are rate-limited, not capped). */
  MAX_OPEN_PUBLISHABLE_CHARGES_PER_MERCHANT: z.coerce.number().int().min(1).default(1_000),
  /** Requests per minute one client IP may make with one publishable key. */
  PUBLISHABLE_KEY_RATE_LIMIT_PER_IP: z.coerce.number().int().min(1).default(60),

  // Accounts and secrets. Required in production; in development the launcher generates them once
  // into $DATA_DIR/dev-secrets.json so they stay the same across restarts.
  /** Signs session tokens and keys the HMAC of one-time codes. At least 32 characters. */
  AUTH_SECRET: z.string().min(32, 'must be at least 32 characters (e.g. `openssl rand -base64 32`)').optional(),
  /** Server-side pepper for PIN hashes; never stored in the database. At least 32 characters. */
  PIN_PEPPER: z.string().min(32, 'must be at least 32 characters').optional(),
  /** HD seed of charge deposit addresses: 32 bytes, base64. Keys are derived, never stored. */
  DEPOSIT_HD_SEED: base64Key.optional(),
  /**
   * Start a local node for each chain without an RPC URL (anvil for EVM chains, a LiteSVM cluster for Solana:
   * scripts/stack/solana-cluster.ts). Defaults to true outside production and
   * false in production, where a local node would pose as the real chain (its real chain id, demo tokens at
   * the real token addresses). true in production only for demos and end-to-end tests of the production build.
   */
  LOCAL_CHAIN_NODES: z.enum(['true', 'false']).optional(),
  /** Chains served by a local development node (set by the launcher): 1 confirmation is enough there. */
  LOCAL_CHAINS: z
    .string()
    .default('')
    .transform((value) =>
      value
        .split(',')
        .map((v) => v.trim())
        .filter(Boolean),
    ),
  /** Current master key for wallet private keys: 32 bytes, base64. */
  WALLET_MASTER_KEY: base64Key.optional(),
  /** Earlier master keys (comma-separated, base64), still accepted for decryption while rotating. */
  WALLET_MASTER_KEYS_PREVIOUS: z
    .string()
    .default('')
    .transform((value, ctx) => {
      const keys = value
        .split(',')
        .map((k) => k.trim())
        .filter(Boolean);
      for (const key of keys) {
        if (Buffer.from(key, 'base64').length !== 32) ctx.addIssue({ code: 'custom', message: 'each key must be 32 bytes, base64' });
      }
      return keys;
    }),
  /** SMTP server for e-mail, e.g. smtp://user:pass@mail.example:587. Unset in development: the dev mailbox (/dev/mailbox). */
  SMTP_URL: z.string().optional(),
  MAIL_FROM: z.string().default('Chargeport <no-reply@chargeport.local>'),
  /** Where business-verification requests are sent. */
  SUPPORT_EMAIL: z.email().default('support@chargeport.local'),
  /**
   * Let the dev outbox ($DATA_DIR/outbox: e-mail without SMTP_URL, SMS with SMS_PROVIDER=dev) run in a
   * production build. Only for end-to-end tests of the production build; never on a real deployment.
   */
  ALLOW_DEV_OUTBOX: z
    .enum(['true', 'false'])
    .default('false')
    .transform((value) => value === 'true'),
  /**
   * Let test-mode webhook endpoints point at loopback (http://localhost, 127.0.0.1, ::1), so merchants
   * can receive test webhooks on their own machine while developing against a local Chargeport. On a
   * hosted deployment that would let any merchant make Chargeport call its own loopback services, so
   * it defaults to true outside production and false in production. Live-mode endpoints never may.
   */
  WEBHOOKS_ALLOW_LOOPBACK: z.enum(['true', 'false']).optional(),
  /**
   * Webhook attempts in flight to one endpoint, per worker process: the most a slow receiver gets at
   * once. It also bounds one endpoint's throughput (a slot is held until the outcome is recorded).
   */
  WEBHOOK_ENDPOINT_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(16),
  /**
   * Price feed for approximate USD values (CoinGecko's simple-price API, or a compatible mirror). Empty
   * string: no feed (stablecoins still show their USD value). Prices older than 15 minutes are not shown.
   */
  PRICE_FEED_URL: z
    .string()
    .default('https://api.coingecko.com/api/v3')
    .transform((value) => (value === '' ? undefined : value))
    .pipe(z.url({ protocol: /^https?$/ }).optional()),
  /**
   * SMS provider: `twilio`; `dev` (the dev outbox, development and tests only); `none`: no SMS, so phone
   * linking and PIN reset by SMS are off (the spec makes the phone optional). Defaults to `dev` outside
   * production and `none` in production.
   */
  SMS_PROVIDER: z.enum(['dev', 'twilio', 'none']).optional(),
  TWILIO_ACCOUNT_SID: z.string().optional(),
  TWILIO_AUTH_TOKEN: z.string().optional(),
  TWILIO_FROM: z.string().optional(),
  /** Google and Apple sign-in (OIDC). Each is offered only when its client id and secret are set. */
  GOOGLE_CLIENT_ID: z.string().optional(),
  GOOGLE_CLIENT_SECRET: z.string().optional(),
  GOOGLE_ISSUER: z.url().default('https://accounts.google.com'),
  APPLE_CLIENT_ID: z.string().optional(),
  APPLE_CLIENT_SECRET: z.string().optional(),
  APPLE_ISSUER: z.url().default('https://appleid.apple.com'),
  /** On-ramp orders (card payments of charges included) one client IP may place per 10 minutes; quotes: 10× that per minute. */
  ONRAMP_ORDERS_PER_IP: z.coerce.number().int().min(1).default(30),
  // On-ramp providers. Each is offered only when its credentials are set (lib/onramp/providers/adapter-for.ts).
  /**
   * The sandbox on-ramp provider (a provider played end to end on loopback: its own payment screen with
   * test cards, signed webhooks, delivery on the local chains). Defaults to on outside production.
   */
  ONRAMP_SANDBOX: z.enum(['true', 'false']).optional(),
  /** Shared secret of the sandbox provider's API and webhooks (development: generated into dev-secrets.json). */
  SANDBOX_PROVIDER_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  MOONPAY_ENVIRONMENT: z.enum(['sandbox', 'production']).default('sandbox'),
  MOONPAY_PUBLISHABLE_KEY: z.string().optional(),
  /** Signs widget URLs (HMAC-SHA256). */
  MOONPAY_SECRET_KEY: z.string().optional(),
  /** Verifies `Moonpay-Signature-V2` on webhooks (the dashboard's webhook key, not the secret key). */
  MOONPAY_WEBHOOK_KEY: z.string().optional(),
  TRANSAK_ENVIRONMENT: z.enum(['staging', 'production']).default('staging'),
  TRANSAK_API_KEY: z.string().optional(),
  TRANSAK_API_SECRET: z.string().optional(),
  /** Our domain as whitelisted with Transak (widget sessions need it). */
  TRANSAK_REFERRER_DOMAIN: z.string().optional(),
  /**
   * PZP's token contract on BNB Smart Chain, for the swap on-ramp. Its address cannot be checked against
   * the issuer from here, so it is configuration; unset on a local BSC node: the demo PZP deployed there.
   */
  PZP_BSC_TOKEN_ADDRESS: z
    .string()
    .regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 0x-prefixed 20-byte address')
    .optional(),
  /** UniswapV2-compatible router on BSC (PancakeSwap v2) for the swap on-ramp; unset on a local node: the demo pool's router. */
  BSC_SWAP_ROUTER_ADDRESS: z
    .string()
    .regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 0x-prefixed 20-byte address')
    .optional(),
  /** Largest price move accepted between a swap quote and its execution, in basis points. */
  SWAP_SLIPPAGE_BPS: z.coerce.number().int().min(1).max(1000).default(100),
  // The transaction engine (lib/transactions/): what it does with transactions that do not land.
  /** A broadcast transaction still unmined this long, with a max fee under the base fee, is re-signed at its nonce with higher fees. */
  TRANSFER_STUCK_AFTER_SECONDS: z.coerce.number().int().min(1).default(90),
  /**
   * Definite refusals by the node in a row (insufficient funds, invalid) before a transaction that can never be broadcast is
   * replaced by a 0-value self-transfer at its nonce. Timeouts, 429 and 5xx do not count (N10).
   */
  TRANSFER_CANCEL_AFTER_FAILURES: z.coerce.number().int().min(1).default(6),
  /**
   * Minutes of sends without an answer from any node (timeouts, 429, 5xx) before the engine logs at error that the transfer is
   * held up. It keeps sending with back-off and never cancels for that.
   */
  TRANSFER_SEND_BUDGET_MINUTES: z.coerce.number().int().min(1).default(30),
  /** Fee bumps of one transaction before the engine stops raising its fees and alerts. */
  TRANSFER_MAX_FEE_BUMPS: z.coerce.number().int().min(0).default(8),
  /** The gas tank funds at most this gas limit for one transaction. */
  GAS_TANK_MAX_GAS_LIMIT: z.coerce.number().int().min(21_000).default(500_000),
  /** The gas limit one fulfilment call may use (lib/contracts/start-fulfilments.ts): lower than the gas tank's, a mint needs far less. */
  FULFILMENT_GAS_LIMIT_MAX: z.coerce.number().int().min(21_000).default(300_000),
  /**
   * Gas (units, summed over all chains) the gas tank sponsors for one merchant (sweeps, refunds, withdrawals) per
   * 24 hours: top-ups and relayed transactions alike (lib/transactions/gas-sponsorship.ts says how each counts).
   */
  GAS_TANK_DAILY_SPONSORED_GAS_PER_MERCHANT: z.coerce.number().int().min(0).default(1_000_000_000),
  /** Deprecated (use GAS_TANK_DAILY_SPONSORED_GAS_PER_MERCHANT): when set, also caps the sponsored transactions per merchant per 24 hours. */
  GAS_TANK_DAILY_TOPUPS_PER_MERCHANT: z.coerce.number().int().min(0).optional(),
  /**
   * Chains (comma-separated names, e.g. BSC,POLYGON) whose sweeps go the sponsored way of ADR 0035: the gas tank relays an
   * EIP-7702 smart-account call and the deposit address never receives native coin. A chain without EIP-7702, or whose
   * EntryPoint or account implementation has no code, keeps the top-up path (said at start). Unset: none.
   */
  SMART_ACCOUNT_CHAINS: z
    .string()
    .default('')
    .transform((value) =>
      value
        .split(',')
        .map((v) => v.trim().toUpperCase())
        .filter(Boolean),
    ),
  /**
   * Batched sweeps on the chains of SMART_ACCOUNT_CHAINS (ADR 0035, "Batched sweeps"): the most deposit addresses of one
   * chain and token one relayed `handleOps` sweeps (1: one transaction per deposit, as before batching), and how long a
   * deposit whose sweep falls due waits for others to join (windows aligned to the clock; 0: each pass batches what is due).
   */
  SWEEP_BATCH_MAX: z.coerce.number().int().min(1).max(100).default(20),
  SWEEP_BATCH_WINDOW_SECONDS: z.coerce.number().int().min(0).max(3_600).default(30),
  /** A refund claim link nobody claimed expires after this many days: its amount is refundable again. */
  REFUND_CLAIM_TTL_DAYS: z.coerce.number().int().min(1).max(365).default(30),
  /** Gas (units, summed over all chains) the gas tank sponsors for one user (balance payments, wallet sends, swaps) per 24 hours. */
  GAS_TANK_DAILY_SPONSORED_GAS_PER_USER: z.coerce.number().int().min(0).default(10_000_000),
  /** Deprecated (use GAS_TANK_DAILY_SPONSORED_GAS_PER_USER): when set, also caps the sponsored transactions per user per 24 hours. */
  GAS_TANK_DAILY_TOPUPS_PER_USER: z.coerce.number().int().min(0).optional(),
  /**
   * Private key (0x + 64 hex) of a funded wallet on the EVM test networks, for the test helpers
   * (POST /api/test_helpers/charges/{id}/pay) on a real test network. Local development chains use the
   * demo payer instead. Unset: test-helper payments on real test networks answer 503. Test networks only.
   */
  /** The test helpers (/api/test_helpers/…, test keys only). Defaults to on outside production. */
  TEST_HELPERS_ENABLED: z.enum(['true', 'false']).optional(),
  TEST_HELPERS_PAYER_KEY: z
    .string()
    .trim()
    .transform((value) => value || undefined)
    .pipe(
      z
        .string()
        .regex(/^0x[0-9a-fA-F]{64}$/, 'must be a 0x-prefixed 32-byte hex private key')
        .optional(),
    )
    .optional(),
  ...rpcEnvEntries,
  ...rpcWsEnvEntries,
});

type ParsedEnv = z.infer<typeof envSchema>;

/** Every variable read here (scripts/compose.test.ts checks that compose.yaml lets each reach the containers). */
export const ENV_VARIABLES = Object.keys(envSchema.shape);

export type Env = Omit<
  ParsedEnv,
  'WEBHOOKS_ALLOW_LOOPBACK' | 'ONRAMP_SANDBOX' | 'LOCAL_CHAIN_NODES' | 'TEST_HELPERS_ENABLED' | 'SMS_PROVIDER'
> & {
  /** Resolved: the variable when set, else true outside production. */
  WEBHOOKS_ALLOW_LOOPBACK: boolean;
  /** Resolved: the variable when set, else true outside production. */
  ONRAMP_SANDBOX: boolean;
  /** Resolved: the variable when set, else true outside production. */
  LOCAL_CHAIN_NODES: boolean;
  /** Resolved: the variable when set, else true outside production. */
  TEST_HELPERS_ENABLED: boolean;
  /** Resolved: the variable when set, else `dev` outside production and `none` (phone linking off) in production. */
  SMS_PROVIDER: 'dev' | 'twilio' | 'none';
} & Partial<Record<`RPC_URL_${ChainName}` | `RPC_WS_URL_${ChainName}`, string>>;

/** RPC_URL_POLYGON, RPC_URL_SOLANA_DEVNET, … */
export function rpcEnvName(chain: ChainName): `RPC_URL_${ChainName}` {
  return `RPC_URL_${chain}`;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

let cached: Env | undefined;

/** Secrets without which production must not start. */
const REQUIRED_IN_PRODUCTION = ['AUTH_SECRET', 'PIN_PEPPER', 'WALLET_MASTER_KEY', 'DEPOSIT_HD_SEED'] as const;
/** What SMS_PROVIDER=twilio needs (checked at start, not at the first SMS). */
const TWILIO_SETTINGS = ['TWILIO_ACCOUNT_SID', 'TWILIO_AUTH_TOKEN', 'TWILIO_FROM'] as const;

export function parseEnv(source: Record<string, string | undefined>): Env {
  const result = envSchema.safeParse(source);
  if (!result.success) {
    const lines = result.error.issues.map((issue) => `  ${issue.path.join('.') || '(env)'}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration (see .env.example):\n${lines.join('\n')}`);
  }
  if (result.data.NODE_ENV === 'production') {
    const missing = REQUIRED_IN_PRODUCTION.filter((name) => !result.data[name]);
    if (missing.length) {
      throw new ConfigError(
        `Invalid configuration (see .env.example):\n${missing.map((name) => `  ${name}: is required in production`).join('\n')}`,
      );
    }
    // E-mail codes are how people sign in: production needs SMTP. SMS only serves the optional phone.
    if (!result.data.ALLOW_DEV_OUTBOX && !result.data.SMTP_URL) {
      throw new ConfigError(
        'Invalid configuration (see .env.example):\n  SMTP_URL: is required in production (sign-in codes go by e-mail; the dev outbox would keep them on disk)',
      );
    }
    if (!result.data.ALLOW_DEV_OUTBOX && result.data.SMS_PROVIDER === 'dev') {
      throw new ConfigError(
        'Invalid configuration (see .env.example):\n  SMS_PROVIDER: dev keeps codes on disk and is refused in production; set twilio (with TWILIO_*), or none (or leave it unset) to run with phone linking off',
      );
    }
  }
  const { WEBHOOKS_ALLOW_LOOPBACK, ONRAMP_SANDBOX, LOCAL_CHAIN_NODES, TEST_HELPERS_ENABLED, SMS_PROVIDER, ...rest } = result.data;
  if (SMS_PROVIDER === 'twilio') {
    const missingTwilio = TWILIO_SETTINGS.filter((name) => !result.data[name]);
    if (missingTwilio.length) {
      throw new ConfigError(
        `Invalid configuration (see .env.example):\n${missingTwilio.map((name) => `  ${name}: is required with SMS_PROVIDER=twilio`).join('\n')}`,
      );
    }
  }
  const localChainNodes = LOCAL_CHAIN_NODES === undefined ? result.data.NODE_ENV !== 'production' : LOCAL_CHAIN_NODES === 'true';
  if (result.data.LOCAL_CHAINS.length && !localChainNodes) {
    // LOCAL_CHAINS lowers confirmations to 1: only ever for nodes the launcher started on purpose.
    throw new ConfigError(
      `Invalid configuration (see .env.example):\n  LOCAL_CHAINS: names local development nodes (${result.data.LOCAL_CHAINS.join(', ')}), but LOCAL_CHAIN_NODES is off; unset LOCAL_CHAINS, or set LOCAL_CHAIN_NODES=true for a demo`,
    );
  }
  return {
    ...rest,
    // The default depends on NODE_ENV, so it is resolved after parsing.
    WEBHOOKS_ALLOW_LOOPBACK:
      WEBHOOKS_ALLOW_LOOPBACK === undefined ? result.data.NODE_ENV !== 'production' : WEBHOOKS_ALLOW_LOOPBACK === 'true',
    ONRAMP_SANDBOX: ONRAMP_SANDBOX === undefined ? result.data.NODE_ENV !== 'production' : ONRAMP_SANDBOX === 'true',
    LOCAL_CHAIN_NODES: localChainNodes,
    TEST_HELPERS_ENABLED: TEST_HELPERS_ENABLED === undefined ? result.data.NODE_ENV !== 'production' : TEST_HELPERS_ENABLED === 'true',
    SMS_PROVIDER: SMS_PROVIDER ?? (result.data.NODE_ENV === 'production' ? 'none' : 'dev'),
  } as Env;
}

/** A secret that must be configured wherever it is used (production start already checked it). */
export function requireSecret(name: (typeof REQUIRED_IN_PRODUCTION)[number]): string {
  const value = env()[name];
  if (!value)
    throw new ConfigError(
      `${name} is not set. Run through \`npm run dev\` (it generates development secrets) or set it (see .env.example).`,
    );
  return value;
}

export function env(): Env {
  cached ??= parseEnv(process.env);
  return cached;
}

/** Tests change process.env between cases; production never calls this. */
export function resetEnvCache(): void {
  cached = undefined;
}

export function checkoutBaseUrl(): string {
  const config = env();
  return (config.CHECKOUT_URL ?? config.APP_URL).replace(/\/+$/, '');
}

/** The chain's RPC URLs in order of preference (RPC_URL_<CHAIN>, comma-separated); empty when it has none. */
export function rpcUrls(chain: ChainName): string[] {
  return env()[rpcEnvName(chain)]?.split(',') ?? [];
}

/** RPC_WS_URL_POLYGON, … */
function rpcWsEnvName(chain: ChainName): `RPC_WS_URL_${ChainName}` {
  return `RPC_WS_URL_${chain}`;
}

/**
 * Where the chain's new blocks can be subscribed to (eth_subscribe newHeads; slotSubscribe on Solana):
 * RPC_WS_URL_<CHAIN>, else for a local node the same port (anvil and the local Solana cluster serve
 * WebSocket beside HTTP); undefined: polling only.
 */
export function rpcWsUrl(chain: ChainName): string | undefined {
  const configured = env()[rpcWsEnvName(chain)];
  if (configured) return configured;
  const http = rpcUrl(chain);
  if (!http || !env().LOCAL_CHAINS.includes(chain)) return undefined;
  return http.replace(/^http/, 'ws');
}

/** The chain's first RPC URL (tools that talk to one node); undefined when it has none. */
export function rpcUrl(chain: ChainName): string | undefined {
  return rpcUrls(chain)[0];
}
