/**
 * The tiers of lib/ (docs/adr/0032-lib-in-tiers.md, ARCHITECTURE.md). `npm run lint` runs this after ESLint.
 *
 * Four tiers, lowest first. A folder imports only its own tier and the tiers below it: never upward.
 * Within the engines and the domains the order of the list is the law as well: a folder imports only the folders
 * listed before it, so neither tier can form a cycle. Foundation folders may use each other (they are small and
 * hold no domain rule); every file in lib/ is free of import cycles.
 *
 * Where does new code go? Into the lowest folder whose imports it needs. When an engine needs to call a domain
 * (a transfer settles a refund, an event carries a charge), the domain hands the engine a hook or a payload: the
 * block scanner's consumer object and the transfer-purpose hooks are the pattern.
 */
export const TIERS = [
  {
    name: 'foundation',
    why: 'used by everything, so it imports nothing above it: configuration, money, ids, errors, the database, chains, keys',
    folders: ['lib/*.ts', 'db', 'chains', 'keyring'],
  },
  {
    name: 'engines',
    why: 'machinery that knows no product rule: scanning blocks, moving value, delivering events, sending mail',
    folders: [
      'metrics',
      'http',
      'geo',
      'pricing',
      'audit',
      'notifications',
      'rate-limit',
      'scanner',
      'smart-accounts',
      'transactions',
      'webhooks',
    ],
  },
  {
    name: 'domains',
    why: 'the product: each folder owns its tables, its rules and its verbs',
    folders: [
      'accounts',
      'auth',
      'wallets',
      'merchants',
      'api-keys',
      'charges',
      'allowances',
      'payments',
      'onramp',
      'swap',
      'refunds',
      'contracts',
      'oauth',
    ],
  },
  {
    name: 'compositions',
    why: 'what puts domains together for one caller: page loaders, operator tools, background jobs, the HTTP edge',
    folders: ['onboarding', 'views', 'admin', 'jobs', 'api', 'health', 'ledger', 'docs', 'test-helpers', 'sandbox-provider'],
  },
];

const ORDERED_TIERS = new Set(['engines', 'domains']);
const pathOf = (folder) => (folder === 'lib/*.ts' ? '^lib/[^/]+\\.tsx?$' : `^lib/${folder}/`);
const any = (folders) => `(${folders.map(pathOf).join('|')})`;

/** One rule per folder: what it must not import (the tiers above it, and later folders of an ordered tier). */
function tierRules() {
  const rules = [];
  TIERS.forEach((tier, t) => {
    const higher = TIERS.slice(t + 1).flatMap((above) => above.folders);
    tier.folders.forEach((folder, i) => {
      const later = ORDERED_TIERS.has(tier.name) ? tier.folders.slice(i + 1) : [];
      const forbidden = [...higher, ...later];
      if (!forbidden.length) return;
      rules.push({
        name: `tiers: lib/${folder === 'lib/*.ts' ? '*.ts' : folder}`,
        comment:
          `${tier.name} (${tier.why}) never import upward.` +
          (later.length ? ` Within ${tier.name}, ${folder} comes before ${later.join(', ')}.` : '') +
          ' Move the shared code down, or have the caller pass a hook in (see the header of .dependency-cruiser.mjs).',
        severity: 'error',
        from: { path: pathOf(folder), pathNot: '\\.test\\.tsx?$' },
        // A schema reads its domain's status list from that domain's pure state.ts (it imports only the foundation).
        to: { path: any(forbidden), pathNot: folder === 'db' ? '/state\\.ts$' : undefined },
      });
    });
  });
  return rules;
}

/** @type {import('dependency-cruiser').IConfiguration} */
const config = {
  forbidden: [
    ...tierRules(),
    {
      name: 'no-cycles',
      comment: 'Two files that import each other (directly or around a loop) cannot be understood or moved apart: break the loop.',
      severity: 'error',
      from: { path: '^(lib|app|components)/', pathNot: '\\.test\\.tsx?$' },
      to: { circular: true },
    },
    {
      name: 'tiers: every lib folder has a tier',
      comment: 'A new folder of lib/ needs a place in TIERS (.dependency-cruiser.mjs) before anything may import it.',
      severity: 'error',
      from: { path: '^lib/' },
      to: {
        path: '^lib/[^/]+/',
        pathNot: any(TIERS.flatMap((tier) => tier.folders)),
      },
    },
    {
      name: 'product code never imports the dev stack',
      comment: 'scripts/ starts local nodes and databases for development and tests; the product runs without it.',
      severity: 'error',
      from: { path: '^(lib|app|components)/', pathNot: '\\.test\\.tsx?$' },
      to: { path: '^scripts/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    includeOnly: '^(lib|app|components|scripts)/',
    exclude: { path: '\\.test\\.tsx?$' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
    reporterOptions: { text: { highlightFocused: true } },
  },
};

export default config;
