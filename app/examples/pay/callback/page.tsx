// GET /examples/pay/callback — the example shop's OAuth redirect URI: the SDK reads the answer from
// the sign-in popup once it lands here, and closes it. Nothing to do on the page itself.
import type { Metadata } from 'next';

export const metadata: Metadata = { title: 'Signing in…', robots: { index: false } };

export default function SignInCallbackPage() {
  return <p className="p-6 text-sm text-slate-600">Signing in… this window closes by itself.</p>;
}
