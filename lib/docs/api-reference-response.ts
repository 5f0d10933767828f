/**
 * The API reference page (/docs/api): Redoc rendering /api/openapi.json in the browser, served from this
 * app (no CDN, works offline). Redoc shows each operation's x-codeSamples (curl, @chargeport/node), the
 * webhook payloads (the document's `webhooks`) and the markdown sections of info.description.
 *
 * A plain HTML document, not a React page: Redoc replaces the DOM under its element, which React's
 * hydration would undo. Its scripts carry this response's CSP nonce; its styles cannot all (Redoc's
 * styling library sets style attributes and injects style elements nonces do not cover), so this page
 * alone allows inline styles — never inline scripts. The page holds no secret and takes no input.
 */
import { pageContentSecurityPolicy } from '@/lib/http/security-headers.mjs';

const REDOC_SCRIPT_PATH = '/docs/api/redoc.standalone.js';

const REDOC_OPTIONS = {
  hideDownloadButton: false,
  expandResponses: '200',
  jsonSampleExpandLevel: 3,
  pathInMiddlePanel: true,
  showWebhookVerb: true,
  theme: {
    colors: { primary: { main: '#4f46e5' } },
    typography: { fontFamily: 'system-ui, sans-serif', headings: { fontFamily: 'system-ui, sans-serif' } },
  },
};

export function apiReferenceResponse(options: { isDevelopment: boolean; isHttps: boolean }): Response {
  const nonce = Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString('base64');
  const policy = pageContentSecurityPolicy({ nonce, isDevelopment: options.isDevelopment, upgradeInsecureRequests: options.isHttps })
    // Inline styles only (see above): with a nonce present a browser would ignore 'unsafe-inline'.
    .replace(/style-src [^;]+/, "style-src 'self' 'unsafe-inline'")
    // Redoc runs its search index in a worker it creates from a blob: URL.
    .concat("; worker-src 'self' blob:");
  const init = `Redoc.init('/api/openapi.json', ${JSON.stringify({ ...REDOC_OPTIONS, nonce })}, document.getElementById('redoc'));`;
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>API reference · Chargeport</title>
<style>body{margin:0}</style>
</head>
<body>
<noscript>The API reference needs JavaScript. The machine-readable document is at <a href="/api/openapi.json">/api/openapi.json</a>.</noscript>
<div id="redoc"></div>
<script nonce="${nonce}" src="${REDOC_SCRIPT_PATH}"></script>
<script nonce="${nonce}">${init}</script>
</body>
</html>
`;
  return new Response(html, {
    headers: { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': policy, 'cache-control': 'no-store' },
  });
}
