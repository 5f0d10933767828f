/** The document's introduction (info.description): keys, envelope and error table, idempotency, paging, USD prices, webhooks. */
import { errorTableMarkdown } from '../error-table';

export function apiDescription(): string {
  return `Crypto payments for games and apps: create a **charge**, send the buyer to its \`paymentUrl\` (the hosted checkout), and learn that it was paid from a **webhook**.

# Authentication

Send your API key in the \`x-api-key\` header. **Secret keys** (\`cp_test_…\`, \`cp_live_…\`) are for your server and can call every operation. **Publishable keys** (\`cp_pub_test_…\`, \`cp_pub_live_…\`) are safe in a browser and may only create charges paid to you and read them (\`createCharge\`, \`getCharge\`), from the origins the key allows (others get \`403 origin_not_allowed\`). The key decides the mode: a test key sees and makes only test charges (on test networks, no real money), a live key only live ones.

# Responses and errors

Every response is \`{ data, error }\`. On success \`error\` is null. On failure \`data\` is null, the HTTP status is not 200, and \`error\` is \`{ code, message, param? }\`: \`code\` is one of the stable codes below, \`message\` says what to fix, \`param\` is the dotted path of the field at fault (\`chargeData.items.0.amount\`). Every response carries \`x-request-id\`; quote it to support. Over the per-key rate limit you get \`429 rate_limited\` with \`Retry-After\` (seconds).

${errorTableMarkdown()}

# Idempotency

Send \`Idempotency-Key\` (1–255 printable characters) on a POST to retry it safely: the same key with the same body answers the first response again, with \`Idempotent-Replayed: true\`, for at least 24 hours; the same key with another body is \`409 idempotency_conflict\`. A failed request stores nothing. The Node SDK sends a generated key on every POST and reuses it for its retries.

# Pagination

Lists answer \`{ object: "list", data, has_more }\`, newest first. Ask for the next page with \`starting_after\` = the id of the last item while \`has_more\` is true. The Node SDK's \`list()\` methods are async iterators that do this.

# Prices in US dollars

\`chargeData.pricing: { currency: "USD", amount: "4.99" }\` instead of token amounts: at creation the price is converted to the token at its USD rate and **rounded up** to the token's smallest unit (the merchant never gets less than the price); the rate is recorded on the charge (\`pricing.rate\`, \`rateSource\`, \`rateAt\`) and **locked for its lifetime**. USD stablecoins (USDC, USDT) are at par. Other tokens use the price feed's last rate if it is at most 15 minutes old; otherwise the charge is refused with \`422 price_unavailable\`. With \`items\`, their \`amount\`s are USD unit prices that must add up to \`pricing.amount\`; each is converted on its own and the charge total is the sum of the lines. The arithmetic is exact (integers, never floats).

# Webhooks

Create an endpoint (\`POST /api/webhook-endpoints\`, or the dashboard) and Chargeport POSTs each event of its mode to it: the event types and their payloads are under **Webhooks** below; \`GET /api/events\` lists the same events.

## Signing

Every delivery carries three headers, per [Standard Webhooks](https://www.standardwebhooks.com):

- \`webhook-id\`: the event id, the same on every retry (deduplicate on it);
- \`webhook-timestamp\`: Unix seconds when this attempt was sent;
- \`webhook-signature\`: \`v1,<signature>\`, where the signature is the base64 HMAC-SHA256 of \`<webhook-id>.<webhook-timestamp>.<raw body>\` keyed with the base64-decoded part of your secret after \`whsec_\`. During a secret rotation two signatures are sent, separated by a space.

## Verifying

Verify the **raw** body (before any JSON parsing), refuse timestamps more than 5 minutes from your clock, compare signatures in constant time, and accept when any one matches. The SDKs do all of this:

\`\`\`js
// Node (@chargeport/node): returns the event, typed by its \`type\`, or throws
const event = chargeport.webhooks.constructEvent(rawBody, request.headers, process.env.CHARGEPORT_WEBHOOK_SECRET);
// Browser / edge runtimes (@chargeport/web)
const event = await verifyWebhook({ secret, body: rawBody, headers: request.headers });
\`\`\`

Any Standard Webhooks library works too. Answer 2xx within 10 seconds; anything else is retried for about three days (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h). \`410 Gone\` disables the endpoint.

## On your laptop

Test-mode endpoints may target \`http://localhost\` (outside production). To drive events without a wallet, create a test charge and pay it with \`POST /api/test_helpers/charges/{chargeId}/pay\`; to watch them live without a public URL, read \`GET /api/events/stream\` (\`chargeport.events.stream()\` in the Node SDK).
`;
}
