import { signInWithProvider } from '@/app/(auth)/actions';
import { Button } from '@/components/ui/button';
import { SiweButton } from './siwe-button';

/** Google / Apple (when configured) and Sign in with Ethereum. */
export function ProviderButtons({ google, apple, callbackUrl }: { google: boolean; apple: boolean; callbackUrl?: string }) {
  return (
    <div className="flex flex-col gap-2">
      {(['google', 'apple'] as const)
        .filter((provider) => (provider === 'google' ? google : apple))
        .map((provider) => (
          <form key={provider} action={signInWithProvider}>
            <input type="hidden" name="provider" value={provider} />
            {callbackUrl && <input type="hidden" name="callbackUrl" value={callbackUrl} />}
            <Button type="submit" variant="secondary" className="w-full">
              Continue with {provider === 'google' ? 'Google' : 'Apple'}
            </Button>
          </form>
        ))}
      <SiweButton />
    </div>
  );
}

export function Divider() {
  return (
    <div className="my-5 flex items-center gap-3 text-xs uppercase tracking-wide text-slate-500" aria-hidden>
      <span className="h-px flex-1 bg-slate-200" /> or <span className="h-px flex-1 bg-slate-200" />
    </div>
  );
}
