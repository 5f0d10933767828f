'use client';

import { useSyncExternalStore } from 'react';

function subscribeToSeconds(onTick: () => void): () => void {
  const timer = setInterval(onTick, 1000);
  return () => clearInterval(timer);
}
const currentSecond = () => Math.floor(Date.now() / 1000);

/**
 * "Expires in 59:12", ticking each second; fixed-width digits so the layout never shifts. The first value
 * is the server's: `serverNow` (epoch ms when the page was rendered) is the time of the server render and
 * of hydration alike, so both show the same text; then the browser's clock takes over. Without it (a
 * component that first renders in the browser) the server shows `--:--`.
 */
export function ExpiryCountdown({ expiresAt, serverNow }: { expiresAt: string; serverNow?: number }) {
  const nowSeconds = useSyncExternalStore(subscribeToSeconds, currentSecond, () =>
    serverNow === undefined ? null : Math.floor(serverNow / 1000),
  );
  const remaining = nowSeconds === null ? null : Math.max(0, Math.floor(new Date(expiresAt).getTime() / 1000) - nowSeconds);
  const label = remaining === null ? '--:--' : `${Math.floor(remaining / 60)}:${String(remaining % 60).padStart(2, '0')}`;
  return (
    <span className="font-mono tabular-nums" data-testid="expiry-countdown">
      {remaining === 0 ? 'Expired' : `Expires in ${label}`}
    </span>
  );
}
