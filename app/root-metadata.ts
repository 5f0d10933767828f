import type { Metadata, Viewport } from 'next';

/** The document's defaults, the same under both root layouts ((site) and (player)) and the global not-found page. */
export const ROOT_METADATA: Metadata = {
  title: { default: 'Chargeport', template: '%s · Chargeport' },
  description: 'Crypto payments for games and apps: charges, hosted checkout, on-ramp.',
  icons: { icon: { url: '/icon.svg', type: 'image/svg+xml' } },
};

export const ROOT_VIEWPORT: Viewport = { width: 'device-width', initialScale: 1 };
