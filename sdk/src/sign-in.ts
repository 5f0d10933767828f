/**
 * "Sign in with Chargeport" in the browser: the authorization code flow with PKCE (S256) in a popup,
 * tokens kept for this tab (sessionStorage), refreshed (refresh tokens rotate at every use), and the
 * signed-in user's calls: `getUser` (OpenID userinfo), `getBalances` (`wallet:read`) and in-app pay
 * (`payments`): the payment request is confirmed by the user with the PIN in a Chargeport popup —
 * the PIN is never typed into the merchant's page.
 *
 * The app needs an OAuth app (dashboard → OAuth) of the public type whose redirect URI is a page of
 * this origin; that page may be empty: the SDK reads the answer from the popup once it lands there.
 */
import { FINAL_CHECKOUT_STATUSES, resolveCheckout, type CheckoutRef } from './checkout-message.ts';
import { ChargeportError, type ApiErrorCode, type SdkErrorCode } from './errors.ts';
import type { PayResult, PayTarget } from './pay.ts';

export interface SignInConfig {
  /** The OAuth app's client id (`cpapp_…`). */
  clientId: string;
  /** A registered redirect URI on this page's origin (the popup lands there). */
  redirectUri: string;
  /** Default: `openid email profile wallet:read payments`. */
  scope?: string;
}

/** The signed-in user, from the OpenID userinfo endpoint. */
export interface ChargeportUser {
  /** Stable account id for this Chargeport (the OpenID `sub`). */
  sub: string;
  email?: string;
  email_verified?: boolean;
  updated_at?: number;
}

export interface WalletBalances {
  wallets: {
    id: string;
    family: 'evm' | 'solana';
    address: string;
    chains: {
      chain: string;
      displayName: string;
      isTestnet: boolean;
      status: 'ok' | 'not_connected' | 'unreachable';
      tokens: {
        symbol: string;
        name: string;
        tokenAddress: string;
        isNative: boolean;
        baseUnits: string | null;
        amount: string | null;
        usd?: string;
      }[];
    }[];
  }[];
  totalUsd: string;
  isTotalPartial: boolean;
}

interface StoredSession {
  accessToken: string;
  refreshToken?: string;
  /** Epoch ms. */
  expiresAt: number;
  scope: string;
}

interface PaymentRequest {
  id: string;
  chargeId: string;
  status: 'pending' | 'confirmed' | 'declined' | 'expired';
  chargeStatus: string;
  verificationUriComplete: string;
  interval: number;
}

const DEFAULT_SCOPE = 'openid email profile wallet:read payments';
const POPUP_FEATURES = 'popup=yes,width=480,height=720';
const POLL_MS = 300;
/** Refresh a little before the access token lapses. */
const EXPIRY_MARGIN_MS = 30_000;

type Fetch = (url: string, init: RequestInit) => Promise<Response>;

/** One app's sign-in state in this tab. */
export class SignInSession {
  readonly #baseUrl: string;
  readonly #config: SignInConfig;
  readonly #fetch: Fetch;
  #session: StoredSession | undefined;

  constructor(baseUrl: string, config: SignInConfig, fetchImpl: Fetch) {
    this.#baseUrl = baseUrl;
    this.#config = config;
    this.#fetch = fetchImpl;
    this.#session = readStored(this.#storageKey);
  }

  get #storageKey(): string {
    return `chargeport.session.${this.#config.clientId}`;
  }

  get isSignedIn(): boolean {
    return this.#session !== undefined;
  }

  hasScope(scope: string): boolean {
    return this.#session?.scope.split(' ').includes(scope) ?? false;
  }

  /** Opens the Chargeport sign-in popup (call it in a click handler) and resolves with the user. */
  async signIn(): Promise<ChargeportUser> {
    const popup = openPopup('chargeport-sign-in');
    try {
      const verifier = randomString(48);
      const state = randomString(24);
      const authorize = new URL('/oidc/auth', this.#baseUrl);
      authorize.search = new URLSearchParams({
        client_id: this.#config.clientId,
        redirect_uri: this.#config.redirectUri,
        response_type: 'code',
        scope: this.#config.scope ?? DEFAULT_SCOPE,
        state,
        nonce: randomString(24),
        code_challenge: await s256(verifier),
        code_challenge_method: 'S256',
      }).toString();
      popup.location.replace(authorize.href);
      const answer = await waitForRedirect(popup, this.#config.redirectUri);
      if (answer.get('state') !== state)
        throw sdkError('sign_in_failed', 'The sign-in answer does not belong to this request (state mismatch).');
      const iss = answer.get('iss');
      if (iss !== null && iss !== new URL(this.#baseUrl).origin)
        throw sdkError('sign_in_failed', `The sign-in answer came from another issuer (${iss}).`);
      const error = answer.get('error');
      if (error)
        throw sdkError(error === 'access_denied' ? 'sign_in_canceled' : 'sign_in_failed', answer.get('error_description') ?? error);
      const code = answer.get('code');
      if (!code) throw sdkError('sign_in_failed', 'The sign-in answer has no code.');
      await this.#tokenRequest({
        grant_type: 'authorization_code',
        code,
        redirect_uri: this.#config.redirectUri,
        client_id: this.#config.clientId,
        code_verifier: verifier,
      });
      return await this.getUser();
    } finally {
      popup.close();
    }
  }

  /** Revokes the refresh token (ending the grant's tokens) and forgets the session. */
  async signOut(): Promise<void> {
    const session = this.#session;
    this.#setSession(undefined);
    const token = session?.refreshToken ?? session?.accessToken;
    if (!token) return;
    await this.#fetch(new URL('/oidc/token/revocation', this.#baseUrl).href, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token, client_id: this.#config.clientId }).toString(),
    }).catch(() => undefined);
  }

  async getUser(): Promise<ChargeportUser> {
    const response = await this.#authorized(new URL('/oidc/me', this.#baseUrl).href, { method: 'GET' });
    const body = (await response.json().catch(() => undefined)) as
      (ChargeportUser & { error?: string; error_description?: string }) | undefined;
    if (!response.ok || !body?.sub)
      throw sdkError(
        response.status === 401 ? 'not_signed_in' : 'invalid_response',
        body?.error_description ?? body?.error ?? `userinfo answered HTTP ${response.status}`,
        response.status,
      );
    return body;
  }

  async getBalances(): Promise<WalletBalances> {
    return (await this.#api('GET', '/api/oauth/balances')) as WalletBalances;
  }

  /**
   * Pays a charge of this app's merchant from the user's balance: opens the Chargeport confirmation
   * popup (the user types the PIN there) and resolves when the charge is final, or `dismissed`.
   */
  async pay(target: PayTarget): Promise<PayResult> {
    const popup = openPopup('chargeport-pay');
    let chargeId: string | undefined;
    try {
      chargeId = resolveCheckout((await target) as CheckoutRef, this.#baseUrl).chargeId;
      let request = (await this.#api('POST', '/api/oauth/payment-requests', { chargeId })) as PaymentRequest;
      popup.location.replace(`${request.verificationUriComplete}&popup=1`);
      for (;;) {
        await sleep(Math.max(1, request.interval) * 1000);
        request = (await this.#api('GET', `/api/oauth/payment-requests/${encodeURIComponent(request.id)}`)) as PaymentRequest;
        if ((FINAL_CHECKOUT_STATUSES as readonly string[]).includes(request.chargeStatus)) {
          return { chargeId, status: request.chargeStatus as PayResult['status'] };
        }
        if (request.status === 'declined' || request.status === 'expired') return { chargeId, status: 'dismissed' };
        // Closed before confirming: the user gave up. Closed after: keep polling until the charge is final.
        if (popup.closed && request.status === 'pending') return { chargeId, status: 'dismissed' };
      }
    } finally {
      if (!popup.closed) popup.close();
    }
  }

  async #api(method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown> {
    const response = await this.#authorized(new URL(path, this.#baseUrl).href, {
      method,
      ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    });
    const envelope = (await response.json().catch(() => undefined)) as
      { data?: unknown; error?: { code: ApiErrorCode; message: string; param?: string } | null } | undefined;
    if (envelope?.error) throw ChargeportError.generate({ status: response.status, ...envelope.error });
    if (!response.ok || !envelope || !('data' in envelope))
      throw sdkError('invalid_response', `Chargeport answered HTTP ${response.status}`, response.status);
    return envelope.data;
  }

  /** A request with a fresh access token (refreshed when it is about to lapse). */
  async #authorized(url: string, init: RequestInit): Promise<Response> {
    let session = this.#session;
    if (!session) throw sdkError('not_signed_in', 'Call signIn() first.');
    if (session.expiresAt - EXPIRY_MARGIN_MS < Date.now()) {
      if (!session.refreshToken) {
        this.#setSession(undefined);
        throw sdkError('not_signed_in', 'The session has ended: call signIn() again.');
      }
      await this.#tokenRequest({ grant_type: 'refresh_token', refresh_token: session.refreshToken, client_id: this.#config.clientId });
      session = this.#session!;
    }
    return this.#fetch(url, {
      ...init,
      headers: { ...(init.headers as Record<string, string> | undefined), authorization: `Bearer ${session.accessToken}` },
    });
  }

  async #tokenRequest(params: Record<string, string>): Promise<void> {
    const response = await this.#fetch(new URL('/oidc/token', this.#baseUrl).href, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(params).toString(),
    });
    const body = (await response.json().catch(() => ({}))) as Record<string, unknown>;
    if (!response.ok || typeof body.access_token !== 'string') {
      if (params.grant_type === 'refresh_token') this.#setSession(undefined);
      throw sdkError(
        params.grant_type === 'refresh_token' ? 'not_signed_in' : 'sign_in_failed',
        String(body.error_description ?? body.error ?? `token endpoint answered HTTP ${response.status}`),
        response.status,
      );
    }
    this.#setSession({
      accessToken: body.access_token,
      ...(typeof body.refresh_token === 'string' ? { refreshToken: body.refresh_token } : {}),
      expiresAt: Date.now() + Number(body.expires_in ?? 0) * 1000,
      scope: String(body.scope ?? ''),
    });
  }

  #setSession(session: StoredSession | undefined): void {
    this.#session = session;
    try {
      if (session) sessionStorage.setItem(this.#storageKey, JSON.stringify(session));
      else sessionStorage.removeItem(this.#storageKey);
    } catch {
      // No storage (privacy mode): the session lives in memory only.
    }
  }
}

function readStored(key: string): StoredSession | undefined {
  try {
    const raw = typeof sessionStorage === 'undefined' ? null : sessionStorage.getItem(key);
    return raw ? (JSON.parse(raw) as StoredSession) : undefined;
  } catch {
    return undefined;
  }
}

function sdkError(code: SdkErrorCode, message: string, status = 0): ChargeportError {
  return new ChargeportError({ status, code, message });
}

function openPopup(name: string): Window {
  if (typeof window === 'undefined') throw new TypeError('Sign-in and in-app pay only work in a browser');
  const popup = window.open('', name, POPUP_FEATURES);
  if (!popup) {
    throw sdkError('popup_blocked', 'The browser blocked the Chargeport window: call this directly in a click handler.');
  }
  return popup;
}

/** Resolves with the query of the redirect URI once the popup lands on it; rejects when the user closes it. */
function waitForRedirect(popup: Window, redirectUri: string): Promise<URLSearchParams> {
  const target = new URL(redirectUri);
  return new Promise((resolve, reject) => {
    const timer = window.setInterval(() => {
      if (popup.closed) {
        window.clearInterval(timer);
        reject(sdkError('sign_in_canceled', 'The sign-in window was closed.'));
        return;
      }
      let href: string;
      try {
        href = popup.location.href; // throws while the popup shows Chargeport (another origin)
      } catch {
        return;
      }
      const landed = URL.parse(href);
      if (landed && landed.origin === target.origin && landed.pathname === target.pathname) {
        window.clearInterval(timer);
        resolve(landed.searchParams);
      }
    }, POLL_MS);
  });
}

function base64url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function randomString(bytes: number): string {
  return base64url(crypto.getRandomValues(new Uint8Array(bytes)));
}

async function s256(verifier: string): Promise<string> {
  return base64url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))));
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
