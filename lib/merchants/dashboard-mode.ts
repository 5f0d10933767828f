import { cookies } from 'next/headers';
import type { ApiKeyMode } from '@/lib/db/schema';

export type { ApiKeyMode };

/** The dashboard's test/live switch: everything shown and changed is of this mode (test data never mixes with live). */
export const DASHBOARD_MODE_COOKIE = 'cp_dashboard_mode';

export async function dashboardMode(): Promise<ApiKeyMode> {
  return (await cookies()).get(DASHBOARD_MODE_COOKIE)?.value === 'live' ? 'live' : 'test';
}
