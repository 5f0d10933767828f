// GET /oauth/pay?user_code=… — where a user confirms an app's payment request with the PIN: the web SDK's
// popup, or the page a game points to with its code (lib/oauth/payment-requests.ts).
import type { Metadata } from 'next';
import { ConfirmPaymentForm } from '@/components/oauth/confirm-payment-form';
import { Button } from '@/components/ui/button';
import { requireUser } from '@/lib/auth/session';
import { loadCheckoutView } from '@/lib/charges/checkout-view';
import { checkoutAllowance } from '@/lib/allowances/checkout-allowance';
import { isAppError } from '@/lib/errors';
import { findPaymentRequestByCode } from '@/lib/oauth/payment-requests';

export const metadata: Metadata = { title: 'Confirm a payment', robots: { index: false } };

export default async function ConfirmPaymentPage({ searchParams }: { searchParams: Promise<{ user_code?: string; popup?: string }> }) {
  const { user_code: userCode, popup } = await searchParams;
  const query = new URLSearchParams({ ...(userCode ? { user_code: userCode } : {}), ...(popup ? { popup } : {}) }).toString();
  const user = await requireUser({ returnTo: `/oauth/pay${query ? `?${query}` : ''}` });
  const frame = (body: React.ReactNode) => (
    <main className="mx-auto flex min-h-dvh max-w-md flex-col justify-center gap-5 px-4 py-10">{body}</main>
  );
  const codeForm = (error?: string) => (
    <form method="get" className="flex flex-col gap-3">
      <h1 className="text-xl font-semibold">Confirm a payment</h1>
      <label htmlFor="user-code" className="text-sm text-slate-700">
        Enter the code your game or app shows.
      </label>
      <input
        id="user-code"
        name="user_code"
        defaultValue={userCode}
        autoComplete="off"
        autoCapitalize="characters"
        placeholder="BCDF-GHJK"
        className="min-h-11 rounded-lg border border-slate-300 px-3 text-center font-mono text-xl uppercase tracking-widest"
      />
      {error && (
        <p role="alert" className="text-sm text-rose-700">
          {error}
        </p>
      )}
      <Button type="submit">Continue</Button>
    </form>
  );
  if (!userCode) return frame(codeForm());
  let request;
  try {
    request = await findPaymentRequestByCode({ userCode, userId: user.id });
  } catch (error) {
    if (isAppError(error)) return frame(codeForm(error.message));
    throw error;
  }
  if (!request.isForThisUser) {
    return frame(
      <p role="alert" className="text-rose-700">
        This payment was requested for another Chargeport account. You are signed in as {user.email}: sign out and sign in with the account
        you use in {request.appName}.
      </p>,
    );
  }
  const charge = await loadCheckoutView(request.chargeId);
  if (!charge) return frame(<p role="alert">This charge no longer exists.</p>);
  const allowance = request.isForThisUser ? await checkoutAllowance({ userId: user.id, chargeId: request.chargeId }) : null;
  return frame(
    <ConfirmPaymentForm request={request} charge={charge} email={user.email ?? ''} isPopup={popup === '1'} allowance={allowance} />,
  );
}
