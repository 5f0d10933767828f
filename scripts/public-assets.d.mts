// Types of public-assets.mjs (plain JavaScript so next.config.mjs can import it).
export declare const PUBLIC_ASSETS: readonly { from: string; to: string }[];
export declare function copyPublicAssets(root?: string): string[];
