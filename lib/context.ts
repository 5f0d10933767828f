import type { DbOrTx } from '@/lib/db/client';
import type { ApiKey, Merchant } from '@/lib/db/schema';

/** Who is acting, passed to every domain verb. Ownership always comes from here, never from a request body. */
export interface ApiContext {
  merchant: Merchant;
  apiKey: ApiKey;
  /** Recorded on events: "api_key:key_…". */
  actor: string;
  requestId: string;
  /** Run inside this transaction when given. */
  tx?: DbOrTx;
}
