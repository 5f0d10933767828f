'use client';

import { useSyncExternalStore } from 'react';

function subscribeToSeconds(onTick: () => void): () => void {
  const timer = setInterval(onTick, 1000);
  return () => clearInterval(timer);
}
const currentSecond = () => Math.floor(Date.now() / 1000);
/** On the server (and the first client render) the time is unknown: render a placeholder, not a wrong value. */
const unknownSecond = () => null;

/** "Expires in 59:12", ticking each second; fixed-width digits so the layout never shifts. */
export function ExpiryCountdown({ expiresAt }: { expiresAt: string }) {
  const nowSeconds = useSyncExternalStore(subscribeToSeconds, currentSecond, unknownSecond);
  const remaining = nowSeconds === null ? null : Math.max(0, Math.floor(new Date(expiresAt).getTime() / 1000) - nowSeconds);
  const label = remaining === null ? '--:--' : `${Math.floor(remaining / 60)}:${String(remaining % 60).padStart(2, '0')}`;
  return (
    <span className="font-mono tabular-nums" data-testid="expiry-countdown">
      {remaining === 0 ? 'Expired' : `Expires in ${label}`}
    </span>
  );
}
