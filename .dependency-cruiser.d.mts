// Types of .dependency-cruiser.mjs, for scripts/tiers.test.ts.
import type { IConfiguration } from 'dependency-cruiser';

export interface Tier {
  name: string;
  why: string;
  folders: string[];
}
export declare const TIERS: Tier[];
declare const config: IConfiguration & {
  forbidden: NonNullable<IConfiguration['forbidden']>;
  options: NonNullable<IConfiguration['options']>;
};
export default config;
