/**
 * The transfer gate (transfer-policy.ts, ADR 0023).
 *
 * (a) The table against the code, like app/security-table.test.ts does for routes: every call of
 *     `recordTransfer(` and `authorizeTransfer(` under lib/ is found in the source and read with the
 *     TypeScript checker — the purpose and the (authority, destination class) its `authorization` can
 *     take — and each combination must be a row of TRANSFER_POLICY. A new caller, or a new purpose, without
 *     its row fails here; so does an authorization whose kind or class is a plain string (it must be
 *     checkable).
 * (b) The gate on real PostgreSQL and anvil: what it refuses, with nothing signed or recorded, and what
 *     it lets through.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { TRANSFER_PURPOSES } from './state';
import { POLICY_PURPOSES, TOKEN_MOVING_SELECTORS, TRANSFER_POLICY, decideTransfer, type PolicyRow } from './transfer-policy';

const ROOT = path.resolve(import.meta.dirname, '../..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return walkable(entry.name) ? sourceFiles(full) : [];
    return /\.(ts|tsx|mts)$/.test(entry.name) && !/\.test\.(ts|tsx|mts)$/.test(entry.name) ? [full] : [];
  });
}
const walkable = (name: string) => name !== 'node_modules' && !name.startsWith('.');

const GATE_CALLS = ['recordTransfer', 'authorizeTransfer'] as const;
/** The engine's own forwarding of its caller's authorization (recordTransfer → authorizeTransfer): the callers are checked instead. */
const FORWARDING = { file: 'lib/transactions/record-transfer.ts', authorization: 'input.authorization' };
/** Rows no caller uses yet, each waiting for the slice that wires it (issue 26 point 3: refunds rework, claim links). */
const AWAITING_CALLERS: PolicyRow[] = [
  { purpose: 'refund', authority: 'owner_step_up', destination: 'original_payer' },
  { purpose: 'refund', authority: 'owner_step_up', destination: 'owner_approved' },
  { purpose: 'refund', authority: 'payer_claim', destination: 'claim_address' },
];

interface CallSite {
  where: string;
  purposes: string[];
  combinations: { authority: string; destination: string }[];
}

/** String literal values of a type (a union of literals), or undefined when it is not made of literals only. */
function literals(type: ts.Type | undefined): string[] | undefined {
  if (!type) return undefined;
  const parts = type.isUnion() ? type.types : [type];
  const values = parts.map((t) => (t.isStringLiteral() ? t.value : undefined));
  return values.every((v): v is string => v !== undefined) ? values : undefined;
}

function propertyType(checker: ts.TypeChecker, type: ts.Type, name: string, at: ts.Node): ts.Type | undefined {
  const symbol = checker.getPropertyOfType(type, name);
  return symbol ? checker.getTypeOfSymbolAtLocation(symbol, at) : undefined;
}

/** Every call of the gate under lib/ with what its arguments can be, read by the TypeScript checker. */
function gateCallSites(): { sites: CallSite[]; problems: string[] } {
  const files = sourceFiles(path.join(ROOT, 'lib')).filter((file) => GATE_CALLS.some((name) => readFileSync(file, 'utf8').includes(`${name}(`)));
  const config = ts.getParsedCommandLineOfConfigFile(path.join(ROOT, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} })!;
  const program = ts.createProgram(files, { ...config.options, noEmit: true, incremental: false, skipLibCheck: true });
  const checker = program.getTypeChecker();
  const sites: CallSite[] = [];
  const problems: string[] = [];
  for (const file of files) {
    const source = program.getSourceFile(file)!;
    const relative = path.relative(ROOT, file);
    const visit = (node: ts.Node): void => {
      if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && (GATE_CALLS as readonly string[]).includes(node.expression.text)) {
        const where = `${relative}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
        const input = node.arguments[1];
        if (!input || !ts.isObjectLiteralExpression(input)) {
          problems.push(`${where}: pass the input as an object literal, so its purpose and authorization can be read`);
          return;
        }
        const property = (name: string) =>
          input.properties.find((p): p is ts.PropertyAssignment | ts.ShorthandPropertyAssignment =>
            (ts.isPropertyAssignment(p) || ts.isShorthandPropertyAssignment(p)) && p.name.getText() === name,
          );
        const authorizationNode = property('authorization');
        const purposeNode = property('purpose');
        if (!authorizationNode || !purposeNode) {
          problems.push(`${where}: no purpose or authorization`);
          return;
        }
        const authorizationExpression = ts.isPropertyAssignment(authorizationNode) ? authorizationNode.initializer : authorizationNode.name;
        if (relative === FORWARDING.file && authorizationExpression.getText() === FORWARDING.authorization) return;
        const purposeExpression = ts.isPropertyAssignment(purposeNode) ? purposeNode.initializer : purposeNode.name;
        const purposes = literals(checker.getTypeAtLocation(purposeExpression));
        const authorizationType = checker.getTypeAtLocation(authorizationExpression);
        const authorityType = propertyType(checker, authorizationType, 'authority', authorizationExpression);
        const destinationType = propertyType(checker, authorizationType, 'destination', authorizationExpression);
        const destinations = destinationType ? literals(propertyType(checker, destinationType, 'class', authorizationExpression)) : undefined;
        const authorities: string[] = [];
        for (const member of authorityType ? (authorityType.isUnion() ? authorityType.types : [authorityType]) : []) {
          const kinds = literals(propertyType(checker, member, 'kind', authorizationExpression));
          if (!kinds) return void problems.push(`${where}: the authority's kind is not a literal type`);
          for (const kind of kinds) {
            if (kind !== 'system') authorities.push(kind);
            else {
              const jobs = literals(propertyType(checker, member, 'job', authorizationExpression));
              if (!jobs) return void problems.push(`${where}: the system job is not a literal type`);
              authorities.push(...jobs.map((job) => `system:${job}`));
            }
          }
        }
        if (!purposes || !destinations || !authorities.length) {
          problems.push(`${where}: purpose, authority kind and destination class must be literal types (got ${checker.typeToString(authorizationType)})`);
          return;
        }
        sites.push({
          where,
          purposes,
          combinations: authorities.flatMap((authority) => destinations.map((destination) => ({ authority, destination }))),
        });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return { sites, problems };
}

describe('the policy table against the code', () => {
  it('every transfer purpose (and the reconciler’s cancel) has at least one row, and every row names a known purpose', () => {
    for (const purpose of [...TRANSFER_PURPOSES, 'cancel' as const]) {
      expect(
        TRANSFER_POLICY.some((row) => row.purpose === purpose),
        `purpose ${purpose} has no row in TRANSFER_POLICY`,
      ).toBe(true);
    }
    for (const row of TRANSFER_POLICY) expect(POLICY_PURPOSES).toContain(row.purpose);
  });

  it(
    'every call of the gate under lib/ passes an authorization whose (purpose, authority, destination) is a row; every row has a caller',
    () => {
      const { sites, problems } = gateCallSites();
      expect(problems).toEqual([]);
      // The callers known when this was written: a call site that disappears without its row going is noticed too.
      const files = new Set(sites.map((s) => s.where.split(':')[0]));
      for (const file of [
        'lib/wallets/send.ts',
        'lib/refunds/create-refund.ts',
        'lib/onramp/pay-charge-from-order.ts',
        'lib/payments/pay-from-balance.ts',
        'lib/payments/sweep-deposits.ts',
        'lib/contracts/start-fulfilments.ts',
        'lib/swap/execute-swap.ts',
        'lib/merchants/withdraw.ts',
        'lib/transactions/reconcile-transfers.ts',
        'lib/transactions/record-transfer.ts',
      ])
        expect(files, `no gate call found in ${file}`).toContain(file);

      const used = new Set<string>();
      const missing: string[] = [];
      for (const site of sites) {
        for (const purpose of site.purposes) {
          for (const { authority, destination } of site.combinations) {
            const key = `${purpose} ${authority}→${destination}`;
            const row = TRANSFER_POLICY.find((r) => r.purpose === purpose && r.authority === authority && r.destination === destination);
            if (row) used.add(key);
            else missing.push(`${site.where}: ${key} has no row in TRANSFER_POLICY`);
          }
        }
      }
      expect(missing).toEqual([]);
      const waiting = new Set(AWAITING_CALLERS.map((r) => `${r.purpose} ${r.authority}→${r.destination}`));
      const unused = TRANSFER_POLICY.map((r) => `${r.purpose} ${r.authority}→${r.destination}`).filter((k) => !used.has(k) && !waiting.has(k));
      expect(unused, 'rows no caller uses: remove them, or list them in AWAITING_CALLERS with the reason').toEqual([]);
    },
    180_000,
  );

  it('decides by the table alone: a row allows, no row refuses (a wallet send by an API key, a refund to any address)', () => {
    expect(decideTransfer('refund', { authority: { kind: 'api_key', apiKeyId: 'key_x', merchantId: 'mer_x' }, destination: { class: 'original_payer' } })).toBe('allow');
    expect(decideTransfer('refund', { authority: { kind: 'api_key', apiKeyId: 'key_x', merchantId: 'mer_x' }, destination: { class: 'any_address' } })).toBe('refuse');
    expect(decideTransfer('refund', { authority: { kind: 'api_key', apiKeyId: 'key_x', merchantId: 'mer_x' }, destination: { class: 'owner_approved', address: '0x' } })).toBe('refuse');
    expect(decideTransfer('wallet_send', { authority: { kind: 'api_key', apiKeyId: 'key_x', merchantId: 'mer_x' }, destination: { class: 'any_address' } })).toBe('refuse');
    expect(decideTransfer('withdrawal', { authority: { kind: 'member', userId: 'usr_x', merchantId: 'mer_x' }, destination: { class: 'owner_approved', address: '0x' } })).toBe('refuse');
    expect(decideTransfer('fulfilment', { authority: { kind: 'system', job: 'sweep' }, destination: { class: 'item_contract' } })).toBe('refuse');
  });

  it('the token-moving selectors are the real ones (approve, transfer, transferFrom, setApprovalForAll, permit)', () => {
    for (const selector of ['0x095ea7b3', '0xa9059cbb', '0x23b872dd', '0xa22cb465', '0xd505accf', '0x8fcbaf0c', '0x42842e0e', '0xb88d4fde', '0xf242432a', '0x2eb2c2d6', '0x39509351'])
      expect(TOKEN_MOVING_SELECTORS.has(selector as `0x${string}`), selector).toBe(true);
    // mint(address,uint256) is what an item contract is for.
    expect(TOKEN_MOVING_SELECTORS.has('0x40c10f19')).toBe(false);
  });
});
