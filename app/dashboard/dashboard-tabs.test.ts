import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DASHBOARD_TABS } from '@/components/dashboard/dashboard-tabs';

/** The spec, "Account setup rules" 8: "The dashboard settings page has these tabs: …", in its order. */
const SPEC_SETTINGS_TABS = ['API Keys', 'Webhooks', 'Linked Accounts', 'Members', 'Tokens', 'OAuth', 'Contracts', 'Profile'];

describe('dashboard tabs', () => {
  it("are the merchant's pages, then the spec's settings tabs by its names in its order, then the audit log", () => {
    expect(DASHBOARD_TABS.map((tab) => tab.label)).toEqual(['Overview', 'Charges', 'Balances', ...SPEC_SETTINGS_TABS, 'Audit log']);
  });

  it("the settings tabs are exactly the spec's (the audit log is the dashboard's own, after them)", () => {
    const settings = DASHBOARD_TABS.filter((tab) => tab.href.startsWith('/dashboard/settings/') && tab.label !== 'Audit log');
    expect(settings.map((tab) => tab.label)).toEqual(SPEC_SETTINGS_TABS);
  });

  it('each tab opens a page of its own', () => {
    const hrefs = DASHBOARD_TABS.map((tab) => tab.href);
    expect(new Set(hrefs).size).toBe(hrefs.length);
    for (const href of hrefs) expect(existsSync(path.join(import.meta.dirname, '..', href, 'page.tsx')), href).toBe(true);
  });
});
