/**
 * `npm start` runs the standalone server as Next.js asks with `output: 'standalone'` (not `next start`), laid
 * out as the container image lays it out: the launcher's command, the Dockerfile's `app` stage and a fake
 * build started for real (no `next build` here: it needs a full clone).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { nextServerCommand, NoProductionBuild, SEMI_SPACE_OPTION, STANDALONE_LAYOUT } from './next-server';

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

/** A project folder with a build: a server.js that reports where it runs and what it finds beside it. */
function fakeBuild(): string {
  const root = mkdtempSync(path.join(tmpdir(), 'chargeport-standalone-'));
  roots.push(root);
  mkdirSync(path.join(root, '.next/standalone'), { recursive: true });
  mkdirSync(path.join(root, '.next/static/chunks'), { recursive: true });
  mkdirSync(path.join(root, 'public/docs'), { recursive: true });
  writeFileSync(path.join(root, '.next/static/chunks/main.js'), 'chunk');
  writeFileSync(path.join(root, 'public/docs/redoc.standalone.js'), 'redoc');
  writeFileSync(
    path.join(root, '.next/standalone/server.js'),
    `const fs = require('node:fs');
process.chdir(__dirname);
console.log(JSON.stringify({
  cwd: process.cwd(),
  chunk: fs.readFileSync('.next/static/chunks/main.js', 'utf8'),
  redoc: fs.readFileSync('public/docs/redoc.standalone.js', 'utf8'),
  port: process.env.PORT, hostname: process.env.HOSTNAME, keepAlive: process.env.KEEP_ALIVE_TIMEOUT,
  semiSpace: process.execArgv.concat((process.env.NODE_OPTIONS || '').split(' ')).find((arg) => arg.startsWith('--max-semi-space-size')),
}));`,
  );
  return root;
}

describe('npm start', () => {
  it('is the launcher in start mode, which spawns the command nextServerCommand gives (never `next start`)', () => {
    const scripts = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }).scripts;
    expect(scripts.start).toMatch(/ scripts\/stack\.mts start$/);
    const launcher = readFileSync('scripts/stack.mts', 'utf8');
    expect(launcher).toContain('nextServerCommand(mode, ');
    expect(launcher).toContain('spawn(nextCommand.command, nextCommand.args');
    expect(launcher).not.toMatch(/keepAliveTimeout|\.bin\/next'/);
  });

  it('runs node .next/standalone/server.js with static files and public/ copied beside it, port and keep-alive set', () => {
    const root = fakeBuild();
    const command = nextServerCommand('start', { root, port: 4321 });
    expect(command.command).toBe(process.execPath);
    expect(command.args).toEqual([path.join(root, '.next/standalone/server.js')]);
    const report = JSON.parse(
      execFileSync(command.command, command.args, {
        cwd: command.cwd,
        env: { ...process.env, ...command.env },
        encoding: 'utf8',
      }),
    ) as Record<string, string>;
    expect(report).toEqual({
      cwd: path.join(root, '.next/standalone'),
      chunk: 'chunk',
      redoc: 'redoc',
      port: '4321',
      hostname: '0.0.0.0',
      keepAlive: '65000',
      semiSpace: SEMI_SPACE_OPTION,
    });
  });

  it("keeps an operator's own semi-space size, and other NODE_OPTIONS beside the default", () => {
    const root = fakeBuild();
    const saved = process.env.NODE_OPTIONS;
    try {
      process.env.NODE_OPTIONS = '--max-semi-space-size=8';
      expect(nextServerCommand('start', { root, port: 4321 }).env.NODE_OPTIONS).toBe('--max-semi-space-size=8');
      process.env.NODE_OPTIONS = '--enable-source-maps';
      expect(nextServerCommand('start', { root, port: 4321 }).env.NODE_OPTIONS).toBe(`--enable-source-maps ${SEMI_SPACE_OPTION}`);
    } finally {
      if (saved === undefined) delete process.env.NODE_OPTIONS;
      else process.env.NODE_OPTIONS = saved;
    }
  });

  it('without a standalone build, says to run `npm run build`', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'chargeport-nobuild-'));
    roots.push(root);
    mkdirSync(path.join(root, '.next'));
    writeFileSync(path.join(root, '.next/BUILD_ID'), 'an old `next start` build');
    expect(() => nextServerCommand('start', { root, port: 4321 })).toThrow(NoProductionBuild);
    expect(() => nextServerCommand('start', { root, port: 4321 })).toThrow(/npm run build/);
  });

  it('`npm run dev` still runs next dev', () => {
    const command = nextServerCommand('dev', { root: '/project', port: 3000 });
    expect([command.command, ...command.args]).toEqual(['/project/node_modules/.bin/next', 'dev', '--port', '3000']);
  });
});

describe('the container image agrees', () => {
  const dockerfile = readFileSync('Dockerfile', 'utf8');
  const appStage = dockerfile.slice(dockerfile.indexOf(' AS app'));

  it('copies the same folders to the same places, and runs the same server.js with the same keep-alive', () => {
    // Paths inside WORKDIR /app: `./` and `.` are the same folder.
    const inApp = (to: string) => path.posix.relative('/app', path.posix.resolve('/app', to)) || '.';
    const copies = [...appStage.matchAll(/^COPY --from=build \S+ \/app\/(\S+) (\S+)$/gm)].map(([, from, to]) => [from, inApp(to!)]);
    expect(copies).toEqual(STANDALONE_LAYOUT.map(([from, to]) => [from, inApp(to)]));
    expect(appStage).toMatch(/^WORKDIR \/app$/m);
    expect(appStage).toContain('CMD ["node", "server.js"]');
    expect(appStage).toMatch(/ KEEP_ALIVE_TIMEOUT=65000\b/);
    expect(appStage).toMatch(/ HOSTNAME=0\.0\.0\.0\b/);
    expect(appStage).toContain(` NODE_OPTIONS=${SEMI_SPACE_OPTION}`);
  });
});
