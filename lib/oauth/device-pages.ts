/**
 * The HTML pages oidc-provider renders itself: the device flow's verification steps (enter the code
 * shown on the game or console, confirm it, done) and the error page. Plain HTML with one stylesheet,
 * allowed by hash in their Content-Security-Policy (no inline script; form_post adds its own hash).
 */
import 'server-only';
import { createHash } from 'node:crypto';
import type { KoaContextWithOIDC } from 'oidc-provider';
import { escapeHtml } from '@/lib/http/escape-html';

const CSS = `body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;background:#f8fafc;color:#0f172a;margin:0;display:grid;place-items:center;min-height:100vh}
main{background:#fff;border-radius:16px;box-shadow:0 1px 3px rgba(15,23,42,.12);padding:32px;width:min(26rem,calc(100% - 32px));box-sizing:border-box}
h1{font-size:1.35rem;margin:0 0 8px}p{color:#475569;line-height:1.5}.brand{font-weight:600;color:#4f46e5;font-size:.85rem;text-transform:uppercase;letter-spacing:.05em}
input[name=user_code]{width:100%;box-sizing:border-box;font:600 1.5rem ui-monospace,monospace;letter-spacing:.15em;text-align:center;padding:12px;border:1px solid #cbd5e1;border-radius:10px;text-transform:uppercase}
button{min-height:44px;width:100%;margin-top:12px;border:0;border-radius:10px;background:#4f46e5;color:#fff;font-weight:600;font-size:1rem;cursor:pointer}
button.secondary{background:#fff;color:#334155;border:1px solid #cbd5e1}.code{font:600 1.6rem ui-monospace,monospace;letter-spacing:.15em;text-align:center;margin:16px 0}
.error{color:#be123c}.warn{background:#fffbeb;border:1px solid #f59e0b;color:#78350f;border-radius:10px;padding:10px 12px;margin:12px 0;line-height:1.45}.warn strong{display:block}dl{display:grid;grid-template-columns:auto 1fr;gap:4px 12px;font-size:.9rem}dt{color:#64748b}dd{margin:0}`;

/** The pages' policy: nothing but this stylesheet; scripts only by the hash oidc-provider adds for form_post. */
export const OIDC_PAGE_CSP = [
  "default-src 'none'",
  `style-src 'sha256-${createHash('sha256').update(CSS).digest('base64')}'`,
  "script-src 'self'",
  "img-src 'self' https: data:",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

/**
 * Device-code phishing (N14): an attacker starts a sign-in on their own device and asks the victim to
 * "verify" its code. The warning is the first thing on both steps, above the code.
 */
const DEVICE_CODE_WARNING =
  '<p class="warn" role="note" data-testid="device-code-warning"><strong>Only enter a code you started yourself.</strong> Chargeport never asks for it. If someone sent you this code or link, stop here: entering it would let them into your account.</p>';

function page(ctx: KoaContextWithOIDC, title: string, body: string): void {
  ctx.type = 'html';
  ctx.body = `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · Chargeport</title><style>${CSS}</style></head><body><main><p class="brand">Chargeport</p>${body}</main></body></html>`;
}

/** Step 1: the code shown on the device. */
export async function userCodeInputPage(ctx: KoaContextWithOIDC, form: string, _out?: unknown, error?: unknown): Promise<void> {
  const message = error
    ? `<p class="error" role="alert">${(error as { userCode?: unknown }).userCode ? 'That code is not valid or has expired: check it on your device.' : 'Something went wrong: enter the code again.'}</p>`
    : '';
  page(
    ctx,
    'Connect a device',
    `<h1>Connect a device</h1>${DEVICE_CODE_WARNING}<p>Enter the code your game or device shows.</p>${message}${form}<button type="submit" form="op.deviceInputForm">Continue</button>`,
  );
}

/** Step 2: the app asking, and the code again, to compare with the device. */
export async function userCodeConfirmPage(
  ctx: KoaContextWithOIDC,
  form: string,
  client: { clientName?: string; clientId: string },
  _deviceInfo: unknown,
  userCode: string,
): Promise<void> {
  const app = escapeHtml(client.clientName ?? client.clientId);
  page(
    ctx,
    'Confirm the device',
    `<h1>Sign in to ${app}?</h1>${DEVICE_CODE_WARNING}<p>Continue only if your device shows this code and you started signing in to <strong>${app}</strong>.</p>
<p class="code" data-testid="device-user-code">${escapeHtml(userCode)}</p>${form}
<button type="submit" form="op.deviceConfirmForm">Continue</button>
<button type="submit" class="secondary" form="op.deviceConfirmForm" name="abort" value="yes">Cancel</button>`,
  );
}

/** Step 3 (after sign-in and consent): done. */
export async function deviceSuccessPage(ctx: KoaContextWithOIDC): Promise<void> {
  const app = escapeHtml(ctx.oidc.client?.clientName ?? 'the app');
  page(
    ctx,
    'Device connected',
    `<h1>You are signed in to ${app}</h1><p>Go back to your device: it continues on its own. You can close this page.</p>`,
  );
}

/** Errors of the provider's own endpoints shown to a person (a bad authorization request, an aborted device code). */
export async function errorPage(ctx: KoaContextWithOIDC, out: { error: string; error_description?: string }): Promise<void> {
  page(
    ctx,
    'Sign-in failed',
    `<h1>Sign-in failed</h1><p class="error" role="alert">${escapeHtml(out.error_description ?? out.error)}</p><dl><dt>Error</dt><dd>${escapeHtml(out.error)}</dd></dl>
<p>Go back to the app and try again. If it keeps failing, tell the app's developer.</p>`,
  );
}
