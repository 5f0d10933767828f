import type { Metadata } from 'next';
import { readAuditLog } from '@/lib/merchants/read-audit-log';
import { roleAllows } from '@/lib/merchants/permissions';
import { requireMember } from '@/lib/merchants/require-member';
import { DataTable } from '@/components/ui/data-table';

export const metadata: Metadata = { title: 'Audit log' };

/** Every mutating dashboard action, newest first. Owners only (checked on the server). */
export default async function AuditLogPage() {
  const { user, membership } = await requireMember({ returnTo: '/dashboard/settings/audit-log' });
  if (!roleAllows(membership.role, 'audit_log.view')) {
    return (
      <main className="mx-auto max-w-5xl px-4 py-8">
        <h1 className="text-xl font-semibold">Audit log</h1>
        <p className="mt-2 text-sm text-slate-600">Only owners can read the audit log.</p>
      </main>
    );
  }
  const entries = await readAuditLog({ userId: user.id, merchantId: membership.merchant.id });
  return (
    <main className="mx-auto max-w-5xl px-4 py-8">
      <h1 className="text-xl font-semibold">Audit log</h1>
      <div className="mt-4">
        <DataTable
          columns={[
            { label: 'When (UTC)' },
            { label: 'Who' },
            { label: 'Action' },
            { label: 'Details', className: 'hidden py-2 font-medium sm:table-cell' },
          ]}
          label="Audit log entries"
          minWidthClass=""
          testId="audit-log"
          relative={false}
        >
          {entries.map((entry) => (
            <tr key={entry.id} data-testid="audit-entry">
              <td className="py-2 font-mono text-xs">{entry.createdAt.toISOString().replace('T', ' ').slice(0, 19)}</td>
              <td className="py-2">
                {entry.actorUserId} <span className="text-xs text-slate-500">({entry.actorRole})</span>
              </td>
              <td className="py-2 font-mono text-xs">{entry.action}</td>
              <td className="hidden py-2 font-mono text-xs text-slate-600 sm:table-cell">
                {[entry.mode, entry.targetId, Object.keys(entry.data).length ? JSON.stringify(entry.data) : '', entry.ip]
                  .filter(Boolean)
                  .join(' · ')}
              </td>
            </tr>
          ))}
        </DataTable>
      </div>
    </main>
  );
}
