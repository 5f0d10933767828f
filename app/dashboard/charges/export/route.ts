// GET /dashboard/charges/export — the signed-in member's charges of the dashboard's mode as CSV, with the Charges tab's filters.
import { withSession } from '@/lib/api/with-session';
import { parseDashboardChargeQuery } from '@/lib/charges/dashboard-filters';
import { exportChargesCsv } from '@/lib/charges/export-charges-csv';
import { AppError } from '@/lib/errors';
import { findMerchantOfUser } from '@/lib/merchants/find-merchant-of-user';
import { dashboardMode } from '@/lib/merchants/dashboard-mode';

export const GET = withSession(async (request, { user }) => {
  const membership = await findMerchantOfUser(user.id);
  if (!membership) throw new AppError('not_found', 'This account is not a merchant yet.');
  const parsed = parseDashboardChargeQuery(new URL(request.url).searchParams);
  if (!parsed.ok) throw new AppError('invalid_request', parsed.message, { param: parsed.param });
  const mode = await dashboardMode();
  const chunks = await exportChargesCsv({ userId: user.id, merchantId: membership.merchant.id, mode, filters: parsed.filters });
  const encoder = new TextEncoder();
  // Pulled one batch at a time: the export never holds more than a batch of rows in memory.
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await chunks.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(next.value));
    },
    async cancel() {
      await chunks.return(undefined);
    },
  });
  const day = new Date().toISOString().slice(0, 10);
  return new Response(body, {
    headers: {
      'content-type': 'text/csv; charset=utf-8',
      'content-disposition': `attachment; filename="charges-${mode}-${day}.csv"`,
      'cache-control': 'no-store',
    },
  });
});
