/**
 * @chargeport/node as a merchant installs it: built, packed with npm, installed into an empty project,
 * imported by Node and typechecked by TypeScript (strict, NodeNext) — exports, declarations and the
 * typed webhook union all have to survive packaging.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../../..');
const sdk = path.join(root, 'sdk/node');
const project = mkdtempSync(path.join(tmpdir(), 'chargeport-node-consumer-'));
const run = (command: string, args: string[], cwd: string) => execFileSync(command, args, { cwd, encoding: 'utf8', stdio: 'pipe' });

afterAll(() => rmSync(project, { recursive: true, force: true }));

describe('@chargeport/node as an installed package', () => {
  it('packs, installs, imports and typechecks in an empty project', () => {
    rmSync(path.join(sdk, 'dist'), { recursive: true, force: true });
    run(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], sdk);
    run('npm', ['pack', '--silent', '--pack-destination', project], sdk);
    const tarball = readdirSync(project).find((name) => name.endsWith('.tgz'))!;
    expect(tarball).toBe('chargeport-node-0.1.0.tgz');
    writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    run('npm', ['install', '--no-audit', '--no-fund', '--offline', `./${tarball}`], project);

    writeFileSync(
      path.join(project, 'main.ts'),
      [
        "import { Chargeport, ChargeportError, type WebhookEvent } from '@chargeport/node';",
        "const chargeport = new Chargeport({ apiKey: 'cp_test_x', baseUrl: 'http://127.0.0.1:9' });",
        'export function handle(event: WebhookEvent): string {',
        "  if (event.type === 'charge.succeeded') return event.data.charge.id;",
        "  if (event.type === 'refund.created') return event.data.refund.id;",
        '  return event.type;',
        '}',
        "export const error = new ChargeportError({ status: 404, code: 'not_found', message: 'x' });",
        'export const create = () => chargeport.charges.create({ chargeData: { chain: "POLYGON", symbol: "POL", tokenAddress: "0x0", amount: "1" } });',
        '',
      ].join('\n'),
    );
    writeFileSync(
      path.join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          target: 'ES2022',
          noEmit: true,
          skipLibCheck: false,
          types: ['node'],
          typeRoots: [path.join(root, 'node_modules/@types')],
        },
        files: ['main.ts'],
      }),
    );
    run(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], project);

    // A wrong use fails to typecheck: the union knows each event's payload.
    writeFileSync(
      path.join(project, 'main.ts'),
      "import type { WebhookEvent } from '@chargeport/node';\nexport const f = (e: WebhookEvent) => e.type === 'charge.succeeded' && e.data.refund.id;\n",
    );
    let output = '';
    try {
      run(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], project);
    } catch (error) {
      output = String((error as { stdout?: string }).stdout);
    }
    expect(output).toMatch(/error TS2339: Property 'refund' does not exist/);

    const imported = run(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "import { Chargeport } from '@chargeport/node'; const c = new Chargeport({ apiKey: 'cp_test_x' }); console.log(typeof c.charges.create, typeof c.webhooks.constructEvent);",
      ],
      project,
    );
    expect(imported.trim()).toBe('function function');

    // The `chargeport` command is installed with it (npx chargeport listen …).
    const usage = run(path.join(project, 'node_modules/.bin/chargeport'), ['--help'], project);
    expect(usage).toContain('chargeport listen  --forward-to <url>');
  }, 240_000);
});
