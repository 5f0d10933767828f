import type { Metadata, Viewport } from 'next';
import { connection } from 'next/server';
import type { ReactNode } from 'react';
import { ROOT_METADATA, ROOT_VIEWPORT } from '../root-metadata';
import './player.css';

export const metadata: Metadata = ROOT_METADATA;
export const viewport: Viewport = ROOT_VIEWPORT;

/**
 * The root layout of the pages a player lands on from a game (the checkout, the on-ramp at / and /onramp): the same
 * document as the site's (app/(site)/layout.tsx) with a stylesheet built from only what these pages render, since
 * it blocks the first paint on a phone (ADR 0031). A link to a page under the other root layout (sign-in, the
 * wallet) loads that page in full.
 */
export default async function PlayerLayout({ children }: { children: ReactNode }) {
  // Rendered per request, for the CSP nonce (app/(site)/layout.tsx).
  await connection();
  return (
    <html lang="en">
      <body className="min-h-dvh font-sans">{children}</body>
    </html>
  );
}
