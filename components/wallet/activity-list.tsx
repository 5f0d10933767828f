import { formatExactTokenAmount, formatTokenAmount } from '@/lib/format-amount';
import Link from 'next/link';
import type { ActivityItem } from '@/lib/wallets/activity';
import { StatusPill } from './status-pill';

const INCOMING = new Set<ActivityItem['kind']>(['received', 'onramp']);

function short(address: string): string {
  return address.length > 14 ? `${address.slice(0, 6)}…${address.slice(-4)}` : address;
}

function when(date: Date): string {
  return `${date.toLocaleString('en-GB', { timeZone: 'UTC', day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit' })} UTC`;
}

/** The Activity tab's entries: what, how much, status, when, and links to the transaction and the order or charge. */
export function ActivityList({ items }: { items: ActivityItem[] }) {
  return (
    <ol className="flex flex-col divide-y divide-slate-100 rounded-xl bg-white ring-1 ring-slate-200" data-testid="activity">
      {items.map((item) => (
        <li key={item.id} className="flex flex-col gap-1 p-4" data-testid="activity-item" data-kind={item.kind} data-status={item.status}>
          <div className="flex flex-wrap items-center justify-between gap-2">
            <p className="flex items-center gap-2 text-sm font-medium">
              {item.title} <StatusPill status={item.status} label={item.statusLabel} />
            </p>
            <p
              className="font-mono text-sm whitespace-nowrap tabular-nums"
              title={formatExactTokenAmount(item.amount, item.tokenSymbol)}
              data-testid="activity-amount"
            >
              {INCOMING.has(item.kind) ? '+' : '−'}
              {formatTokenAmount(item.amount, item.tokenSymbol)}
            </p>
          </div>
          <p className="text-xs text-slate-600">
            {item.chainDisplayName} · <time dateTime={item.occurredAt.toISOString()}>{when(item.occurredAt)}</time>
            {item.counterparty && (
              <>
                {' · '}
                {item.kind === 'received' ? 'from' : 'to'}{' '}
                <span className="font-mono" title={item.counterparty}>
                  {short(item.counterparty)}
                </span>
              </>
            )}
          </p>
          <p className="flex flex-wrap gap-x-3 text-xs">
            {item.explorerUrl ? (
              <a
                href={item.explorerUrl}
                target="_blank"
                rel="noreferrer"
                className="font-medium text-brand-700 underline underline-offset-2"
              >
                View on explorer
              </a>
            ) : (
              item.txHash && (
                <span className="text-slate-500" title={item.txHash}>
                  Transaction <span className="font-mono">{short(item.txHash)}</span> (local network: no public explorer)
                </span>
              )
            )}
            {item.kind === 'onramp' && item.href && (
              <Link href={item.href} className="font-medium text-brand-700 underline underline-offset-2">
                Order details
              </Link>
            )}
            {item.kind === 'charge_payment' && item.href && (
              <Link href={item.href} className="font-medium text-brand-700 underline underline-offset-2">
                Charge {item.chargeId}
              </Link>
            )}
          </p>
        </li>
      ))}
    </ol>
  );
}
