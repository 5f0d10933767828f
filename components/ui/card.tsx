import type { ReactNode } from 'react';
import { Logo } from './logo';

/** The centred card of the account pages, in the checkout's visual language. */
export function AuthCard({ title, subtitle, children }: { title: string; subtitle?: ReactNode; children: ReactNode }) {
  return (
    <main className="mx-auto flex min-h-dvh max-w-md flex-col justify-center px-4 py-10">
      <div className="mb-6 flex justify-center text-lg">
        <Logo />
      </div>
      <section className="rounded-2xl bg-white p-6 shadow-sm ring-1 ring-slate-200 sm:p-8">
        <h1 className="text-xl font-semibold">{title}</h1>
        {subtitle && <div className="mt-1 text-sm text-slate-600">{subtitle}</div>}
        <div className="mt-6">{children}</div>
      </section>
    </main>
  );
}

export function Notice({ children, tone = 'info' }: { children: ReactNode; tone?: 'info' | 'success' | 'error' }) {
  const styles = {
    info: 'bg-sky-50 text-sky-900 ring-sky-200',
    success: 'bg-emerald-50 text-emerald-900 ring-emerald-200',
    error: 'bg-rose-50 text-rose-900 ring-rose-200',
  }[tone];
  return (
    <div role={tone === 'error' ? 'alert' : 'status'} className={`mb-4 rounded-lg px-3 py-2 text-sm ring-1 ${styles}`}>
      {children}
    </div>
  );
}
