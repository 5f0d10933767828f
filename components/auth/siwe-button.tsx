'use client';

import { useState } from 'react';
import { createSiweMessage } from 'viem/siwe';
import { injected, useConnect, useSignMessage } from 'wagmi';
import { getSiweNonce, signInWithSiwe } from '@/app/(auth)/actions';
import { Button } from '@/components/ui/button';

/** Sign in with Ethereum (EIP-4361) through the browser wallet (wagmi's injected connector). */
export function SiweButton() {
  const { connectAsync } = useConnect();
  const { signMessageAsync } = useSignMessage();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  async function onClick() {
    setError(undefined);
    if (typeof window === 'undefined' || !('ethereum' in window)) {
      setError('No browser wallet found. Install one (e.g. MetaMask) or use e-mail.');
      return;
    }
    setBusy(true);
    try {
      const { accounts, chainId } = await connectAsync({ connector: injected() });
      const address = accounts[0]!;
      const issued = await getSiweNonce();
      if (issued.error) {
        setError(issued.error.message);
        return;
      }
      const nonce = issued.data.nonce;
      const message = createSiweMessage({
        address,
        chainId,
        domain: window.location.host,
        uri: window.location.origin,
        nonce,
        version: '1',
        statement: 'Sign in to Chargeport.',
        issuedAt: new Date(),
      });
      const signature = await signMessageAsync({ message, account: address });
      const result = await signInWithSiwe({ message, signature });
      if (result.error) setError(result.error.message);
      else window.location.assign(result.data.redirectTo);
    } catch (cause) {
      setError(
        cause instanceof Error && /reject|denied/i.test(cause.message)
          ? 'The wallet declined the request.'
          : 'Could not sign in with the wallet.',
      );
    } finally {
      setBusy(false);
    }
  }

  return (
    <div>
      <Button type="button" variant="secondary" className="w-full" onClick={onClick} disabled={busy}>
        {busy ? 'Waiting for the wallet…' : 'Sign in with Ethereum'}
      </Button>
      {error && (
        <p role="alert" className="mt-2 text-sm text-rose-700">
          {error}
        </p>
      )}
    </div>
  );
}
