/**
 * The dashboard's tabs, in order: the merchant's pages (Overview, Charges, Balances), then the settings
 * tabs exactly as the spec lists them ("Account setup rules" 8: API Keys, Webhooks, Linked Accounts,
 * Members, Tokens, OAuth, Contracts, Profile), then the Audit log. Pinned by
 * app/dashboard/dashboard-tabs.test.ts and, as rendered, by e2e/accessibility.spec.ts.
 */
export const DASHBOARD_TABS = [
  { href: '/dashboard', label: 'Overview' },
  { href: '/dashboard/charges', label: 'Charges' },
  { href: '/dashboard/balances', label: 'Balances' },
  { href: '/dashboard/settings/api-keys', label: 'API Keys' },
  { href: '/dashboard/settings/webhooks', label: 'Webhooks' },
  { href: '/dashboard/settings/linked-accounts', label: 'Linked Accounts' },
  { href: '/dashboard/settings/members', label: 'Members' },
  { href: '/dashboard/settings/tokens', label: 'Tokens' },
  { href: '/dashboard/settings/oauth', label: 'OAuth' },
  { href: '/dashboard/settings/contracts', label: 'Contracts' },
  { href: '/dashboard/settings/profile', label: 'Profile' },
  { href: '/dashboard/settings/audit-log', label: 'Audit log' },
] as const;
