'use server';

import { cookies } from 'next/headers';
import { revalidatePath } from 'next/cache';
import { DASHBOARD_MODE_COOKIE } from '@/lib/merchants/dashboard-mode';

export async function setDashboardModeAction(form: FormData): Promise<void> {
  const mode = form.get('mode') === 'live' ? 'live' : 'test';
  (await cookies()).set(DASHBOARD_MODE_COOKIE, mode, { path: '/dashboard', sameSite: 'lax', httpOnly: true, maxAge: 365 * 24 * 3600 });
  revalidatePath('/dashboard', 'layout');
}
