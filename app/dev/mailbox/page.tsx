import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { isDevOutboxAllowed, readOutbox } from '@/lib/notifications/outbox';

export const metadata: Metadata = { title: 'Dev mailbox', robots: { index: false } };
export const dynamic = 'force-dynamic';

/** Development only: the e-mails and SMS the app would have sent. */
export default function DevMailboxPage() {
  if (!isDevOutboxAllowed()) notFound();
  const messages = [...readOutbox('email'), ...readOutbox('sms')].sort((a, b) => b.at.localeCompare(a.at)).slice(0, 50);
  return (
    <main className="mx-auto max-w-3xl px-4 py-10">
      <h1 className="text-2xl font-semibold">Dev mailbox</h1>
      <p className="mt-1 text-sm text-slate-600">E-mails and SMS the app sent without SMTP_URL / an SMS provider. Newest first.</p>
      <ul className="mt-6 flex flex-col gap-3">
        {messages.map((message) => (
          <li key={message.id} className="rounded-xl bg-white p-4 shadow-sm ring-1 ring-slate-200" data-testid="outbox-message">
            <p className="text-xs text-slate-500">
              {message.channel.toUpperCase()} to <span className="font-mono">{message.to}</span> · {new Date(message.at).toLocaleString()}
            </p>
            {message.subject && <p className="mt-1 font-medium">{message.subject}</p>}
            <pre className="mt-2 whitespace-pre-wrap font-sans text-sm text-slate-700">{message.text}</pre>
          </li>
        ))}
        {messages.length === 0 && <li className="text-slate-500">Nothing sent yet.</li>}
      </ul>
    </main>
  );
}
