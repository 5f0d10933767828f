/** Wallets on the wire: the send request of /wallet/send, which `previewSend` and `sendFromWallet` both take. */
import { z } from 'zod';

export const sendRequestSchema = z.object({
  chain: z.string().trim(),
  tokenAddress: z.string().trim(),
  toAddress: z.string().trim(),
  amount: z.string().trim(),
});
export type SendRequest = z.input<typeof sendRequestSchema>;
