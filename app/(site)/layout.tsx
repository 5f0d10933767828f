import type { Metadata, Viewport } from 'next';
import { connection } from 'next/server';
import type { ReactNode } from 'react';
import { ROOT_METADATA, ROOT_VIEWPORT } from '../root-metadata';
import './globals.css';

export const metadata: Metadata = ROOT_METADATA;
export const viewport: Viewport = ROOT_VIEWPORT;

/**
 * The root layout of every page but the player's (app/(player)/layout.tsx, which has its own small stylesheet).
 * Going from a page under one root layout to a page under the other loads the new page in full.
 */
export default async function SiteLayout({ children }: { children: ReactNode }) {
  // Every page is rendered per request: its scripts carry that request's CSP nonce (proxy.ts), which a
  // page built ahead of time could not know.
  await connection();
  return (
    <html lang="en">
      <body className="min-h-dvh font-sans">{children}</body>
    </html>
  );
}
