// /sandbox-provider/pay/[sessionId] — Sandpiper Pay's payment screen for one checkout session
import { notFound } from 'next/navigation';
import { Panel } from '@/components/sandbox-provider/brand';
import { OrderSummary } from '@/components/sandbox-provider/order-summary';
import { PaymentFailed, PaymentReceived, ReturnLink } from '@/components/sandbox-provider/outcome';
import { PaymentForm } from '@/components/sandbox-provider/payment-form';
import { loadPaymentScreen } from '@/lib/sandbox-provider/payment-screen';

export default async function SandboxPaymentPage({ params }: { params: Promise<{ sessionId: string }> }) {
  const { sessionId } = await params;
  const screen = await loadPaymentScreen(sessionId);
  if (!screen) notFound();
  return (
    <>
      <OrderSummary screen={screen} />
      {screen.state === 'open' || screen.state === 'authenticating' ? (
        <PaymentForm
          sessionId={screen.sessionId}
          total={screen.total}
          defaultMethod={screen.paymentMethod}
          redirectUrl={screen.redirectUrl}
          awaitingAuthentication={screen.state === 'authenticating'}
        />
      ) : screen.state === 'expired' ? (
        <Panel className="flex flex-col gap-3">
          <p role="alert" className="text-lg font-semibold" data-testid="sandbox-outcome" data-outcome="expired">
            This payment session has expired
          </p>
          <p className="text-sm text-stone-600">Nothing was charged. Go back to the merchant to start a new purchase.</p>
          <ReturnLink redirectUrl={screen.redirectUrl} />
        </Panel>
      ) : screen.state === 'failed' ? (
        <PaymentFailed message={screen.failureMessage!} redirectUrl={screen.redirectUrl} />
      ) : (
        <PaymentReceived redirectUrl={screen.redirectUrl} autoRedirect={false} delivered={screen.state === 'completed'} />
      )}
    </>
  );
}
