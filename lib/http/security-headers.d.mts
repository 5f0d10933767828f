// Types of security-headers.mjs (plain JavaScript so next.config.mjs can import it).
export declare function staticSecurityHeaders(options: { isProduction: boolean }): { key: string; value: string }[];

/** API responses are JSON, never rendered: nothing may load from them, nobody may frame them. */
export declare const API_CONTENT_SECURITY_POLICY: string;

export interface PageContentSecurityPolicyOptions {
  nonce: string;
  isDevelopment: boolean;
  upgradeInsecureRequests: boolean;
  /** A checkout page with WALLETCONNECT_PROJECT_ID set: WalletConnect's SDK must reach the relay and style its modal. */
  walletConnect?: boolean;
}

export declare function pageContentSecurityPolicy(options: PageContentSecurityPolicyOptions): string;
