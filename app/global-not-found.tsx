import type { Metadata, Viewport } from 'next';
import { NotFoundNotice } from '@/components/ui/not-found-notice';
import { ROOT_METADATA, ROOT_VIEWPORT } from './root-metadata';
import './(player)/player.css';

export const metadata: Metadata = { ...ROOT_METADATA, title: 'Not found' };
export const viewport: Viewport = ROOT_VIEWPORT;

/**
 * A URL no route serves. With two root layouts ((site), (player)) there is no app-wide one to render it in
 * (`experimental.globalNotFound`); the player's stylesheet, the smaller, carries its classes.
 */
export default function GlobalNotFound() {
  return (
    <html lang="en">
      <body className="min-h-dvh font-sans">
        <NotFoundNotice />
      </body>
    </html>
  );
}
