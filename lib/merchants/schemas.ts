/**
 * Zod schemas of the merchants domain, shared by its verbs and their forms: the business name
 * (becoming a merchant, lib/onboarding/become-merchant.ts; renaming, profile.ts).
 */
import { z } from 'zod';
import { cleanDisplayText } from '@/lib/text';

/** The merchant's name: shown to buyers (checkout, on-ramp label), so bidi, control and invisible characters are removed (lib/text.ts). */
export const businessNameSchema = z
  .string()
  .overwrite(cleanDisplayText)
  .min(2, 'must be at least 2 characters')
  .max(100, 'must be at most 100 characters');
