/**
 * Local stand-ins for Google and Apple sign-in, so "Continue with Google / Apple" works on
 * `npm run dev` without credentials or a network (as the sandbox provider stands in for on-ramp
 * providers). Each is a real OpenID provider (oidc-provider) on loopback, mounted at /google and
 * /apple of one server, with its own sign-in screen that says what it stands in for: enter any
 * e-mail and it signs you in as that (verified) account.
 *
 * Apple's peculiarities are kept, because the app must handle them: the answer comes back as a
 * cross-site form POST (`response_mode=form_post`), `email_verified` is the string "true", and an
 * ID token is issued for the scope `name email` (Apple does not require `openid`).
 *
 * Never in production: the launcher starts it only for `npm run dev` (and the e2e stack runs it for
 * its Apple journey). Real credentials (GOOGLE_CLIENT_ID…) take precedence.
 */
import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider, { type Configuration } from 'oidc-provider';
import { escapeHtml } from '@/lib/http/escape-html';

export const STAND_IN_PROVIDERS = ['google', 'apple'] as const;
type StandInProvider = (typeof STAND_IN_PROVIDERS)[number];

const LABELS: Record<StandInProvider, { name: string; color: string }> = {
  google: { name: 'Google', color: '#1a73e8' },
  apple: { name: 'Apple', color: '#000000' },
};

export interface IdentityStandIns {
  url: string;
  /** GOOGLE_CLIENT_ID, GOOGLE_CLIENT_SECRET, GOOGLE_ISSUER and the same for APPLE, for the app. */
  env: Record<string, string>;
  stop(): Promise<void>;
}

export async function startIdentityStandIns(options: {
  appUrl: string;
  port?: number;
  providers?: readonly StandInProvider[];
  clientSecret?: string;
}): Promise<IdentityStandIns> {
  const providers = options.providers ?? STAND_IN_PROVIDERS;
  const clientSecret = options.clientSecret ?? randomBytes(24).toString('base64url');
  const accounts = new Map<string, { email: string; name: string }>();
  const instances = new Map<string, Provider>();
  const server = createServer((req, res) => void route(req, res));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', resolve);
  });
  const url = `http://localhost:${(server.address() as AddressInfo).port}`;
  const appUrl = options.appUrl.replace(/\/+$/, '');
  const env: Record<string, string> = {};
  for (const provider of providers) {
    instances.set(provider, new Provider(`${url}/${provider}`, configuration(provider, { appUrl, clientSecret, accounts })));
    const prefix = provider.toUpperCase();
    env[`${prefix}_CLIENT_ID`] = `chargeport-dev-${provider}`;
    env[`${prefix}_CLIENT_SECRET`] = clientSecret;
    env[`${prefix}_ISSUER`] = `${url}/${provider}`;
  }

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      const path = new URL(req.url ?? '/', url).pathname;
      const name = path.split('/')[1] ?? '';
      const provider = instances.get(name);
      if (!provider) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('Not a stand-in provider');
      const interaction = /^\/[a-z]+\/interaction\/([\w-]+)$/.exec(path);
      if (interaction) return await signInStep(name as StandInProvider, provider, req, res);
      if (name === 'apple' && path === '/apple/auth') req.url = withOpenidScope(req.url ?? '');
      // Mounted under /<provider>: oidc-provider reads the mount path from originalUrl.
      (req as IncomingMessage & { originalUrl?: string }).originalUrl = req.url;
      req.url = (req.url ?? '/').slice(name.length + 1) || '/';
      provider.callback()(req, res);
    } catch (error) {
      res.writeHead(500, { 'content-type': 'text/plain' }).end(error instanceof Error ? error.message : 'error');
    }
  }

  /** The stand-in's own sign-in screen (GET), and what it does with the e-mail entered (POST). */
  async function signInStep(name: StandInProvider, provider: Provider, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const details = await provider.interactionDetails(req, res);
    if (details.prompt.name === 'consent') {
      // A stand-in asks no consent: what the app asked is granted.
      const grant = new provider.Grant({ accountId: details.session!.accountId, clientId: String(details.params.client_id) });
      grant.addOIDCScope(String(details.params.scope ?? 'openid'));
      return provider.interactionFinished(req, res, { consent: { grantId: await grant.save() } }, { mergeWithLastSubmission: true });
    }
    if (req.method === 'POST') {
      const form = new URLSearchParams(await readBody(req));
      const email = (form.get('email') ?? '').trim().toLowerCase();
      if (/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) {
        const accountId = `${name}-standin-${createHash('sha256').update(email).digest('hex').slice(0, 20)}`;
        accounts.set(accountId, { email, name: form.get('name')?.trim() || email.split('@')[0]! });
        return provider.interactionFinished(req, res, { login: { accountId } }, { mergeWithLastSubmission: false });
      }
      return void res
        .writeHead(400, { 'content-type': 'text/html; charset=utf-8' })
        .end(signInPage(name, details.uid, 'Enter an e-mail address.'));
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(signInPage(name, details.uid));
  }

  return {
    url,
    env,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function configuration(
  name: StandInProvider,
  context: { appUrl: string; clientSecret: string; accounts: Map<string, { email: string; name: string }> },
): Configuration {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    clients: [
      {
        client_id: `chargeport-dev-${name}`,
        client_secret: context.clientSecret,
        redirect_uris: [`${context.appUrl}/api/auth/callback/${name}`],
        response_types: ['code'],
        grant_types: ['authorization_code'],
      },
    ],
    jwks: { keys: [{ ...privateKey.export({ format: 'jwk' }), kid: `${name}-standin`, alg: 'RS256', use: 'sig' }] as never },
    findAccount: (_ctx, sub) => {
      const account = context.accounts.get(sub);
      if (!account) return undefined;
      return {
        accountId: sub,
        // Apple sends email_verified as a string.
        claims: () => ({ sub, email: account.email, email_verified: name === 'apple' ? 'true' : true, name: account.name }),
      };
    },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'], name: ['name'] },
    scopes: ['openid', 'email', 'profile', 'name'],
    conformIdTokenClaims: false,
    pkce: { required: () => false },
    features: { devInteractions: { enabled: false }, rpInitiatedLogout: { enabled: false } },
    interactions: { url: (_ctx, interaction) => `/${name}/interaction/${interaction.uid}` },
    ttl: { AccessToken: 3600, AuthorizationCode: 60, Grant: 3600, IdToken: 3600, Interaction: 3600, Session: 3600 },
    cookies: {
      keys: [randomBytes(32).toString('base64url')],
      names: { session: `${name}-standin.session`, interaction: `${name}-standin.interaction`, resume: `${name}-standin.resume` },
    },
  };
}

/** Apple issues an ID token for `name email`; oidc-provider only with `openid`. */
function withOpenidScope(requestUrl: string): string {
  const url = new URL(requestUrl, 'http://stand-in');
  const scopes = new Set((url.searchParams.get('scope') ?? '').split(' ').filter(Boolean));
  scopes.add('openid');
  url.searchParams.set('scope', [...scopes].join(' '));
  return url.pathname + url.search;
}

async function readBody(req: IncomingMessage): Promise<string> {
  let body = '';
  for await (const chunk of req) {
    body += String(chunk);
    if (body.length > 16_384) break;
  }
  return body;
}

function signInPage(name: StandInProvider, uid: string, error?: string): string {
  const { name: label, color } = LABELS[name];
  return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${label} sign-in (local stand-in)</title>
<style>body{font-family:system-ui,sans-serif;background:#f1f5f9;display:grid;place-items:center;min-height:100vh;margin:0}
main{background:#fff;padding:32px;border-radius:16px;width:min(24rem,calc(100% - 32px));box-sizing:border-box;box-shadow:0 1px 3px rgba(0,0,0,.15)}
h1{font-size:1.3rem;margin:0 0 4px}.note{background:#fef3c7;color:#78350f;padding:10px 12px;border-radius:8px;font-size:.85rem;line-height:1.4}
label{display:block;font-size:.9rem;margin:14px 0 4px}input{width:100%;box-sizing:border-box;padding:10px;border:1px solid #cbd5e1;border-radius:8px;font-size:1rem}
button{margin-top:16px;width:100%;min-height:44px;border:0;border-radius:8px;background:${color};color:#fff;font-weight:600;font-size:1rem}.error{color:#be123c}</style></head>
<body><main><h1>Sign in with ${label}</h1>
<p class="note" data-testid="stand-in-note">Local stand-in for ${label} sign-in. This is not ${label}: Chargeport's development server runs it so that “Continue with ${label}” works without ${label} credentials. Any e-mail you enter signs in as a verified ${label} account.</p>
${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ''}
<form method="post" action="/${name}/interaction/${escapeHtml(uid)}">
<label for="email">E-mail of the ${label} account</label><input id="email" name="email" type="email" required autocomplete="email">
<label for="name">Name (optional)</label><input id="name" name="name" autocomplete="name">
<button type="submit">Continue</button></form></main></body></html>`;
}
