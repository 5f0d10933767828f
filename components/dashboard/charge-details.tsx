import type { ReactNode } from 'react';
import { ChargeStatusBadge, formatUtc } from '@/components/dashboard/charges-table';
import { CHAINS, explorerTxUrl, findToken, type ChainName } from '@/lib/chains/registry';
import type { DashboardCharge } from '@/lib/charges/get-dashboard-charge';
import { formatAmount } from '@/lib/money';
import { Amount } from '@/components/ui/amount';
import { fundingOf } from '@/lib/charges/funding';
import { formatUsd, multiplyToCents } from '@/lib/pricing/approximate-usd';

function Section({ title, children, testId }: { title: string; children: ReactNode; testId?: string }) {
  const id = `section-${title.toLowerCase().replaceAll(/[^a-z]+/g, '-')}`;
  return (
    <section
      aria-labelledby={id}
      className="flex min-w-0 flex-col gap-3 rounded-xl bg-white p-5 ring-1 ring-slate-200"
      data-testid={testId}
    >
      <h2 id={id} className="font-semibold">
        {title}
      </h2>
      {children}
    </section>
  );
}

/** Wide tables scroll sideways on a phone. */
function Table({ children, testId, minWidth = 'min-w-[36rem]' }: { children: ReactNode; testId?: string; minWidth?: string }) {
  return (
    <div className="overflow-x-auto">
      <table className={`w-full ${minWidth} text-left text-sm`} data-testid={testId}>
        {children}
      </table>
    </div>
  );
}

const TH = 'py-2 pr-3 font-medium';
const TD = 'py-2 pr-3 align-top';

export function ChargeDetails({ details }: { details: DashboardCharge }) {
  const { charge, events, payments, deliveries } = details;
  const chain = CHAINS[charge.chain as ChainName];
  const token = chain ? findToken(chain, charge.tokenAddress) : undefined;
  const amount = (baseUnits: bigint) => <Amount value={formatAmount(baseUnits, charge.tokenDecimals)} symbol={charge.tokenSymbol} />;
  const received = fundingOf(payments).confirmed;
  const metadata = Object.entries(charge.metadata);
  return (
    <>
      <header className="flex flex-col gap-2">
        <div className="flex flex-wrap items-center gap-3">
          <h1 className="break-all font-mono text-lg font-semibold" data-testid="charge-id">
            {charge.id}
          </h1>
          <ChargeStatusBadge status={charge.status} />
          <span className="rounded bg-slate-100 px-1.5 py-0.5 text-xs text-slate-600">{charge.mode}</span>
        </div>
        <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm">
          <dt className="text-slate-500">Total</dt>
          <dd className="font-semibold tabular-nums" data-testid="charge-total">
            {amount(charge.totalBaseUnits)}
            {token?.usdPegged && (
              <span className="font-normal text-slate-600">
                {' '}
                · ≈ {formatUsd(multiplyToCents(charge.totalBaseUnits, charge.tokenDecimals, '1'))}
              </span>
            )}
          </dd>
          <dt className="text-slate-500">Received (confirmed)</dt>
          <dd className="tabular-nums" data-testid="charge-received">
            {amount(received)}
          </dd>
          <dt className="text-slate-500">Chain</dt>
          <dd>{chain?.displayName ?? charge.chain}</dd>
          <dt className="text-slate-500">Token</dt>
          <dd className="break-all">
            {charge.tokenSymbol} <span className="font-mono text-xs text-slate-500">{charge.tokenAddress}</span>
          </dd>
          <dt className="text-slate-500">Paid to</dt>
          <dd className="break-all">
            {charge.destination === 'merchant_wallet'
              ? 'Your service wallet'
              : `${charge.toAddress} (${charge.destination.replace('_', ' ')})`}
          </dd>
          {charge.allowanceId && (
            <>
              <dt className="text-slate-500">Paid with</dt>
              <dd data-testid="charge-paid-under-allowance">One tap, under the buyer’s spending allowance for you</dd>
            </>
          )}
          <dt className="text-slate-500">Created</dt>
          <dd>{formatUtc(charge.createdAt)}</dd>
          <dt className="text-slate-500">Expires</dt>
          <dd>{formatUtc(charge.expiresAt)}</dd>
          {metadata.length > 0 && (
            <>
              <dt className="text-slate-500">Metadata</dt>
              <dd className="break-all font-mono text-xs" data-testid="charge-metadata">
                {metadata.map(([key, value]) => (
                  <div key={key}>
                    {key}: {value}
                  </div>
                ))}
              </dd>
            </>
          )}
        </dl>
      </header>

      <Section title="Items">
        {charge.items.length > 0 ? (
          <Table testId="charge-items" minWidth="min-w-[28rem]">
            <thead className="text-slate-500">
              <tr>
                <th className={TH}>Item</th>
                <th className={`${TH} text-right`}>Price</th>
                <th className={`${TH} text-right`}>Quantity</th>
                <th className={`${TH} text-right`}>Line total</th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100">
              {charge.items.map((item, index) => (
                <tr key={index}>
                  <td className={TD}>{item.name}</td>
                  <td className={`${TD} whitespace-nowrap text-right tabular-nums`}>{amount(BigInt(item.unitBaseUnits))}</td>
                  <td className={`${TD} text-right tabular-nums`}>{item.quantity}</td>
                  <td className={`${TD} whitespace-nowrap text-right tabular-nums`}>{amount(BigInt(item.lineTotalBaseUnits))}</td>
                </tr>
              ))}
            </tbody>
            <tfoot>
              <tr className="border-t border-slate-200 font-semibold">
                <td className={TD} colSpan={3}>
                  Total
                </td>
                <td className={`${TD} whitespace-nowrap text-right tabular-nums`}>{amount(charge.totalBaseUnits)}</td>
              </tr>
            </tfoot>
          </Table>
        ) : (
          <p className="text-sm text-slate-600">No items: the charge was created with an amount only.</p>
        )}
      </Section>

      <Section title="Payments" testId="charge-payments">
        {payments.length > 0 ? (
          <Table minWidth="min-w-[44rem]">
            <thead className="text-slate-500">
              <tr>
                <th className={TH}>Transaction</th>
                <th className={`${TH} text-right`}>Amount</th>
                <th className={TH}>Status</th>
                <th className={TH}>From</th>
                <th className={TH}>Seen</th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100">
              {payments.map((payment) => {
                const url = CHAINS[payment.chain as ChainName]
                  ? explorerTxUrl(CHAINS[payment.chain as ChainName], payment.txHash)
                  : undefined;
                return (
                  <tr key={payment.id} data-testid="payment-row">
                    <td className={`${TD} max-w-72 break-all font-mono text-xs`}>
                      {url ? (
                        <a
                          href={url}
                          target="_blank"
                          rel="noopener noreferrer"
                          className="text-brand-700 underline"
                          data-testid="payment-tx"
                        >
                          {payment.txHash}
                        </a>
                      ) : (
                        <span data-testid="payment-tx">{payment.txHash}</span>
                      )}
                    </td>
                    <td className={`${TD} whitespace-nowrap text-right tabular-nums`}>{amount(payment.amountBaseUnits)}</td>
                    <td className={TD}>
                      {payment.status}
                      {payment.isLate && <span className="ml-1 text-xs text-amber-800">(late, not counted)</span>}
                    </td>
                    <td className={`${TD} max-w-48 break-all font-mono text-xs`}>{payment.fromAddress}</td>
                    <td className={`${TD} whitespace-nowrap text-slate-600`}>{formatUtc(payment.createdAt)}</td>
                  </tr>
                );
              })}
            </tbody>
          </Table>
        ) : (
          <p className="text-sm text-slate-600">No transfer seen yet.</p>
        )}
      </Section>

      <Section title="Timeline">
        <ol className="flex flex-col gap-2 text-sm" data-testid="charge-timeline">
          {events.map((event) => (
            <li key={event.id} className="flex flex-wrap gap-x-3" data-testid="timeline-entry" data-type={event.type}>
              <span className="whitespace-nowrap text-slate-500">{formatUtc(event.createdAt)}</span>
              <span className="font-mono text-xs leading-5">{event.type}</span>
              <span className="text-slate-600">
                {event.fromStatus && event.fromStatus !== event.toStatus ? `${event.fromStatus} → ${event.toStatus}` : event.toStatus}
              </span>
              <span className="text-xs leading-5 text-slate-500">by {event.actor}</span>
            </li>
          ))}
        </ol>
      </Section>

      <Section title="Webhook deliveries">
        {deliveries.length > 0 ? (
          <Table testId="webhook-deliveries" minWidth="min-w-[44rem]">
            <thead className="text-slate-500">
              <tr>
                <th className={TH}>Event</th>
                <th className={TH}>Endpoint</th>
                <th className={`${TH} text-right`}>Attempt</th>
                <th className={TH}>Status</th>
                <th className={TH}>Response</th>
                <th className={TH}>Time</th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100">
              {deliveries.map((delivery) => (
                <tr
                  key={`${delivery.eventId}-${delivery.attempt?.id ?? 'none'}`}
                  data-testid="webhook-delivery"
                  data-event-type={delivery.eventType}
                >
                  <td className={`${TD} font-mono text-xs`}>{delivery.eventType}</td>
                  {delivery.attempt ? (
                    <>
                      <td className={`${TD} max-w-64 break-all font-mono text-xs`}>{delivery.attempt.endpointUrl}</td>
                      <td className={`${TD} text-right tabular-nums`}>{delivery.attempt.attempt}</td>
                      <td className={TD}>
                        {delivery.attempt.status}
                        {delivery.attempt.nextAttemptAt && (
                          <span className="block text-xs text-slate-500">next {formatUtc(delivery.attempt.nextAttemptAt)}</span>
                        )}
                      </td>
                      <td className={`${TD} tabular-nums`}>{delivery.attempt.responseStatus ?? delivery.attempt.errorCode ?? '—'}</td>
                      <td className={`${TD} whitespace-nowrap text-slate-600`}>{formatUtc(delivery.attempt.at)}</td>
                    </>
                  ) : (
                    <>
                      <td className={`${TD} text-slate-600`} colSpan={4}>
                        {delivery.isRelayed ? 'No endpoint subscribed to this event' : 'Queued for delivery'}
                      </td>
                      <td className={`${TD} whitespace-nowrap text-slate-600`}>{formatUtc(delivery.eventCreatedAt)}</td>
                    </>
                  )}
                </tr>
              ))}
            </tbody>
          </Table>
        ) : (
          <p className="text-sm text-slate-600">No webhook events for this charge.</p>
        )}
      </Section>
    </>
  );
}
