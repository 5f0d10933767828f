/**
 * Both TypeScript SDKs as a team installs them: each package is packed with `npm pack` (its
 * `prepack` builds dist/ from the sources), both tarballs are installed offline into one empty
 * project, and that project's strict TypeScript compiles a file using them, while a file with a
 * misspelt chain or list filter must fail to compile. The packages also have to carry one licence
 * (MIT, as the API document says), a README with an install section, a CHANGELOG entry for their
 * version, and the same version in package.json and in the `VERSION` the SDK sends on every request.
 * TypeScript and @types/node come from the repository's node_modules: no registry access.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '@/lib/api/openapi';
import { VERSION as NODE_VERSION } from '../node/src/version';
import { VERSION as WEB_VERSION } from '../src/version';

const root = path.resolve(import.meta.dirname, '../..');
const tsc = path.join(root, 'node_modules/typescript/bin/tsc');
const PACKAGES = [
  { dir: path.join(root, 'sdk'), name: '@chargeport/web', version: WEB_VERSION },
  { dir: path.join(root, 'sdk/node'), name: '@chargeport/node', version: NODE_VERSION },
];
const project = mkdtempSync(path.join(tmpdir(), 'chargeport-sdk-consumer-'));
const run = (command: string, args: string[], cwd: string) => execFileSync(command, args, { cwd, encoding: 'utf8', stdio: 'pipe' });
const readJson = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;

afterAll(() => rmSync(project, { recursive: true, force: true }));

describe('the SDK packages as published', () => {
  it.each(PACKAGES)(
    '$name: MIT as the API document, the VERSION it sends is package.json’s, README install section, CHANGELOG entry',
    (pkg) => {
      const manifest = readJson(path.join(pkg.dir, 'package.json'));
      expect(manifest.name).toBe(pkg.name);
      expect(manifest.version).toBe(pkg.version);
      expect(manifest.version).toMatch(/^\d+\.\d+\.\d+$/);
      expect(manifest.license).toBe(buildOpenApiDocument('http://localhost:3000').info.license?.identifier);
      expect(manifest.license).toBe('MIT');
      expect(readFileSync(path.join(pkg.dir, 'LICENSE'), 'utf8')).toMatch(/^MIT License\n/);
      const readme = readFileSync(path.join(pkg.dir, 'README.md'), 'utf8');
      expect(readme).toMatch(new RegExp(`## Install\\n[\\s\\S]*npm install ${pkg.name}`));
      expect(readFileSync(path.join(pkg.dir, 'CHANGELOG.md'), 'utf8')).toContain(`## ${pkg.version}`);
    },
  );

  it('pack both, install them offline into an empty project, import them, and typecheck strict TypeScript: good code compiles, a misspelt chain or filter does not', () => {
    const tarballs = PACKAGES.map((pkg) => {
      rmSync(path.join(pkg.dir, 'dist'), { recursive: true, force: true });
      // npm pack runs `prepack` (tsc -p tsconfig.build.json): what is packed is built from the sources.
      const name = run('npm', ['pack', '--silent', '--pack-destination', project], pkg.dir).trim().split('\n').at(-1)!;
      expect(name).toBe(`${pkg.name.replace('@', '').replace('/', '-')}-${pkg.version}.tgz`);
      return name;
    });
    const listing = run('tar', ['-tzf', path.join(project, tarballs[0]!)], project);
    for (const file of ['package/LICENSE', 'package/README.md', 'package/CHANGELOG.md', 'package/dist/index.d.ts'])
      expect(listing).toContain(file);

    writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    run('npm', ['install', '--no-audit', '--no-fund', '--offline', ...tarballs.map((name) => `./${name}`)], project);
    for (const pkg of PACKAGES) {
      const installed = readJson(path.join(project, 'node_modules', pkg.name, 'package.json'));
      expect(installed).toMatchObject({ version: pkg.version, license: 'MIT' });
      expect(existsSync(path.join(project, 'node_modules', pkg.name, 'LICENSE'))).toBe(true);
    }

    writeFileSync(
      path.join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          target: 'ES2022',
          lib: ['ES2022', 'DOM'],
          noEmit: true,
          // The packages' declarations are not re-checked line by line (that triples the time, mostly
          // in @types/node); a broken or unresolved declaration still shows: the expected-error lines
          // of good.ts would go unused and bad.ts's errors would vanish.
          skipLibCheck: true,
          types: ['node'],
          typeRoots: [path.join(root, 'node_modules/@types')],
        },
        files: ['good.ts', 'bad.ts'],
      }),
    );
    // Compiles as is; each @ts-expect-error line must really be an error (else TS2578 in good.ts).
    writeFileSync(
      path.join(project, 'good.ts'),
      `import { Chargeport, Chain, ChargeportError, InvalidRequestError, RateLimitError, type WebhookEvent } from '@chargeport/node';
import { Chargeport as WebChargeport, verifyWebhook, APIError, TimeoutError } from '@chargeport/web';

const chargeport = new Chargeport({ apiKey: 'cp_test_x', baseUrl: 'http://127.0.0.1:9', maxRetries: 3, timeoutMs: 10_000 });
export const create = () => chargeport.charges.create({ chargeData: { chain: Chain.POLYGON_AMOY, symbol: 'POL', tokenAddress: '0x0', amount: '1' }, isTest: true });
export const flat = () => chargeport.charges.create({ chain: 'SOLANA', symbol: 'USDC', tokenAddress: 'EPj', amount: '1' });
export const list = () => chargeport.charges.list({ status: 'succeeded', mode: 'live', limit: 10, created_gte: '2026-01-01T00:00:00Z' });
export const events = () => chargeport.events.list({ type: 'charge.succeeded' });
export function handle(event: WebhookEvent): string {
  if (event.type === 'charge.succeeded') return event.data.charge.id;
  if (event.type === 'refund.created') return event.data.refund.id;
  return event.type;
}
export function kind(error: unknown): string {
  if (error instanceof RateLimitError) return \`retry in \${error.retryAfter ?? 1} s\`;
  if (error instanceof InvalidRequestError) return \`\${error.code} \${error.param ?? ''}\`;
  if (error instanceof ChargeportError) return \`\${error.status} \${error.requestId ?? ''}\`;
  if (error instanceof APIError || error instanceof TimeoutError) return 'web';
  return 'unknown';
}

const web = new WebChargeport({ apiKey: 'cp_pub_test_x', baseUrl: 'https://pay.example.com', timeoutMs: 5_000, maxRetries: 1 });
export const webCreate = () => web.createCharge({ chain: 'POLYGON', symbol: 'USDC', tokenAddress: '0x3c', amount: '4.99' });
export async function verified(body: string, headers: Headers): Promise<string> {
  const event = await verifyWebhook({ secret: 'whsec_x', body, headers });
  if (event.type === 'charge.succeeded') return event.data.charge.status;
  return event.type;
}

// @ts-expect-error -- a misspelt chain (node)
chargeport.charges.create({ chargeData: { chain: 'ETHERUEM', symbol: 'POL', tokenAddress: '0x0', amount: '1' } });
// @ts-expect-error -- a misspelt chain (web)
web.createCharge({ chain: 'ETHERUEM', symbol: 'USDC', tokenAddress: '0x3c', amount: '1' });
// @ts-expect-error -- a misspelt list filter
chargeport.charges.list({ stauts: 'succeeded' });
// @ts-expect-error -- a status that does not exist
chargeport.charges.listPage({ status: 'paid' });
// @ts-expect-error -- an event type that does not exist
chargeport.events.list({ type: 'charge.paid' });
`,
    );
    // Must NOT compile: the same mistakes without @ts-expect-error.
    writeFileSync(
      path.join(project, 'bad.ts'),
      `import { Chargeport } from '@chargeport/node';
import { Chargeport as WebChargeport, verifyWebhook } from '@chargeport/web';
const chargeport = new Chargeport({ apiKey: 'cp_test_x' });
const web = new WebChargeport({ apiKey: 'cp_pub_test_x', baseUrl: 'https://pay.example.com' });
chargeport.charges.create({ chargeData: { chain: 'ETHERUEM', symbol: 'POL', tokenAddress: '0x0', amount: '1' } });
web.createCharge({ chain: 'ETHERUEM', symbol: 'USDC', tokenAddress: '0x3c', amount: '1' });
chargeport.charges.list({ stauts: 'x' });
export const f = async (body: string) => { const e = await verifyWebhook({ secret: 'whsec_x', body, headers: {} }); return e.type === 'charge.succeeded' && e.data.refund.id; };
`,
    );
    let output = '';
    try {
      run(process.execPath, [tsc, '-p', 'tsconfig.json'], project);
    } catch (error) {
      output = String((error as { stdout?: string }).stdout);
    }
    const errors = output.split('\n').filter((line) => / error TS\d+/.test(line));
    expect(
      errors.filter((line) => line.startsWith('good.ts')),
      output,
    ).toEqual([]);
    const badLines = errors.filter((line) => line.startsWith('bad.ts')).map((line) => Number(/^bad\.ts\((\d+),/.exec(line)?.[1]));
    expect(new Set(badLines), output).toEqual(new Set([5, 6, 7, 8]));
    expect(output).toContain(`'"ETHERUEM"' is not assignable`);
    expect(output).toMatch(/'stauts' does not exist/);
    expect(output).toMatch(/Property 'refund' does not exist/);

    // Node imports the installed ESM, and the VERSION it sends is the installed package's version.
    const imported = run(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "import * as node from '@chargeport/node'; import * as web from '@chargeport/web'; const c = new node.Chargeport({ apiKey: 'cp_test_x' }); console.log(typeof c.charges.create, typeof web.verifyWebhook, node.VERSION, web.VERSION);",
      ],
      project,
    );
    expect(imported.trim()).toBe(`function function ${NODE_VERSION} ${WEB_VERSION}`);

    // The `chargeport` command is installed with @chargeport/node (npx chargeport listen …).
    const usage = run(path.join(project, 'node_modules/.bin/chargeport'), ['--help'], project);
    expect(usage).toContain('chargeport listen  --forward-to <url>');
  }, 120_000);
});
