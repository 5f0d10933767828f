/**
 * An invitation link carries a random token; only its SHA-256 is stored, so a leaked table opens no
 * invitation. Inviting stores the hash, the accept page and accepting look the link up by it.
 */
import { createHash } from 'node:crypto';

export const hashInvitationToken = (token: string) => createHash('sha256').update(token).digest('hex');
