/**
 * Business verification as the rest of the product reads it. Verification checks the business behind
 * a name; renaming a verified merchant flags it for re-review (`reviewRequiredAt`, set by the Profile
 * tab) rather than un-verifying it: its existing production keys keep working, so a rename never stops
 * a live integration, but no new production key and no direct transfer until support verifies again
 * (`npm run admin -- merchant verify`). See docs/security.md.
 */
import type { Merchant } from '@/lib/db/schema';

type VerificationFields = Pick<Merchant, 'verifiedAt' | 'reviewRequiredAt' | 'verificationRequestedAt'>;

export type VerificationStatus = 'verified' | 'review_required' | 'requested' | 'not_verified';

/** Verified and not renamed since: may be issued production keys and make direct transfers. */
export function isVerifiedForLive(merchant: Pick<Merchant, 'verifiedAt' | 'reviewRequiredAt'>): boolean {
  return merchant.verifiedAt !== null && merchant.reviewRequiredAt === null;
}

export function verificationStatus(merchant: VerificationFields): VerificationStatus {
  if (merchant.verifiedAt) return merchant.reviewRequiredAt ? 'review_required' : 'verified';
  return merchant.verificationRequestedAt ? 'requested' : 'not_verified';
}

/** How the dashboard words each status. */
export const VERIFICATION_STATUS_LABELS: Record<VerificationStatus, string> = {
  verified: 'verified',
  review_required: 'review pending after a name change',
  requested: 'requested',
  not_verified: 'not verified',
};
