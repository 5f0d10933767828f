/**
 * The users who granted an app access, for the OAuth tab: any member may read them (`dashboard.view`),
 * for an app of their own merchant only (app-of-merchant.ts).
 */
import 'server-only';
import { getDb } from '@/lib/db/client';
import { authorizeMember, type MemberActor } from '@/lib/merchants/permissions';
import { appOfMerchant } from './app-of-merchant';
import { listAppUsers, type AppUser } from './grants';

/** The app's users, for a member who may see the dashboard. */
export async function listOAuthAppUsers(input: MemberActor & { clientId: string }): Promise<AppUser[]> {
  await authorizeMember(getDb(), { ...input, permission: 'dashboard.view' });
  await appOfMerchant(getDb(), input.merchantId, input.clientId);
  return listAppUsers(input.clientId);
}
