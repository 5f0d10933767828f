import type { ReactNode } from 'react';

export interface DataTableColumn {
  label: string;
  /** The header cell's classes, when not the default `py-2 font-medium` (alignment, padding). */
  className?: string;
  /** Read to screen readers only (a column of buttons: "Actions"). */
  srOnly?: boolean;
}

/**
 * The dashboard's table frame: horizontal scroll on narrow screens, the header row, divided body rows.
 * `minWidthClass` is a literal Tailwind class (e.g. "min-w-[40rem]") so Tailwind sees it in the caller.
 * The scrolling frame is a named, focusable region: on a phone a table of plain text (balances) must
 * still scroll by keyboard (axe scrollable-region-focusable, WCAG 2.1.1).
 */
export function DataTable({
  columns,
  label,
  minWidthClass,
  testId,
  relative = true,
  children,
}: {
  columns: readonly DataTableColumn[];
  /** What the table lists, for screen readers ("Balances"). */
  label: string;
  minWidthClass: string;
  testId?: string;
  relative?: boolean;
  children: ReactNode;
}) {
  return (
    <div className={relative ? 'relative overflow-x-auto' : 'overflow-x-auto'} role="region" aria-label={label} tabIndex={0}>
      <table className={`w-full ${minWidthClass} text-left text-sm`} data-testid={testId}>
        <thead className="text-slate-500">
          <tr>
            {columns.map((column) => (
              <th key={column.label} className={column.className ?? 'py-2 font-medium'}>
                {column.srOnly ? <span className="sr-only">{column.label}</span> : column.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100">{children}</tbody>
      </table>
    </div>
  );
}
