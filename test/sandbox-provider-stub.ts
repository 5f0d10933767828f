/**
 * Test helper: the sandbox on-ramp provider's HTTP API (quotes and payment sessions) answered in
 * process, since no web server runs under vitest. Every other request goes to the real fetch (viem's
 * RPC calls included). Call it in a beforeEach; vi.restoreAllMocks() in afterEach removes it.
 */
import { vi } from 'vitest';

export function stubSandboxProvider(): { sessions: Record<string, unknown>[] } {
  const sessions: Record<string, unknown>[] = [];
  const realFetch = globalThis.fetch;
  vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
    const url = String(input instanceof Request ? input.url : input);
    if (url.startsWith(`${process.env.APP_URL}/sandbox-provider/api/quote`)) {
      const amount = new URL(url).searchParams.get('cryptoAmount')!;
      return Response.json({
        data: {
          cryptoAmount: amount,
          fiatCurrency: 'USD',
          rate: '1',
          providerFee: '0',
          networkFee: '0',
          total: amount,
          expiresAt: new Date(Date.now() + 60_000).toISOString(),
        },
      });
    }
    if (!url.startsWith(`${process.env.APP_URL}/sandbox-provider/api/sessions`)) return realFetch(input, init);
    sessions.push(JSON.parse(String(init?.body)) as Record<string, unknown>);
    return Response.json(
      {
        data: {
          sessionId: `ses_${sessions.length}`,
          url: `${process.env.APP_URL}/sandbox-provider/pay/ses_${sessions.length}`,
          expiresAt: new Date(Date.now() + 1_800_000).toISOString(),
        },
      },
      { status: 201 },
    );
  });
  return { sessions };
}
