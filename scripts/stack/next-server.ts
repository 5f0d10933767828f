/**
 * How the launcher runs Next.js: `next dev` for `npm run dev`; for `npm start`, the standalone server
 * (`node .next/standalone/server.js`), which is what Next.js asks for with `output: 'standalone'` (`next start`
 * warns it does not work there) and what the container image runs (Dockerfile, `app` stage).
 *
 * The standalone folder holds neither `.next/static` nor `public/`: they are copied into it at start, to the
 * places the Dockerfile's `app` stage copies them (STANDALONE_LAYOUT, checked against the Dockerfile by a test).
 */
import { cpSync, existsSync } from 'node:fs';
import path from 'node:path';

/** What the standalone server's folder must hold, from where in the build: `[build path, path inside the standalone folder]`. */
export const STANDALONE_LAYOUT = [
  ['.next/standalone', '.'],
  ['.next/static', '.next/static'],
  ['public', 'public'],
] as const;

const STANDALONE_DIR = STANDALONE_LAYOUT[0][0];

/**
 * Idle keep-alive connections stay open longer than a load balancer's (60 s is the usual idle timeout): with
 * Node's 5 s default the server closes a connection just as a client or proxy reuses it, and that request fails
 * with ECONNRESET. The Dockerfile sets the same.
 */
const KEEP_ALIVE_TIMEOUT_MS = '65000';

/**
 * V8's young generation for the server: semi-spaces of 64 MB instead of 16. Each request allocates a few
 * hundred KB, and with dozens in flight a small young generation is scavenged every few milliseconds;
 * under bench:api this halved the garbage collector's share of the main thread per createCharge (12 % → 6 %)
 * and cut next-server's CPU per charge by about a tenth (docs/development.md), for up to ~100 MB more
 * memory. An operator's own --max-semi-space-size in NODE_OPTIONS wins. The Dockerfile sets the same.
 */
export const SEMI_SPACE_OPTION = '--max-semi-space-size=64';

function serverNodeOptions(inherited: string | undefined): string {
  const options = inherited?.trim() ?? '';
  if (/--max-semi-space-size\b/.test(options)) return options;
  return options ? `${options} ${SEMI_SPACE_OPTION}` : SEMI_SPACE_OPTION;
}

export interface NextServerCommand {
  command: string;
  args: string[];
  cwd: string;
  /** Added to the child's environment. */
  env: Record<string, string>;
}

export class NoProductionBuild extends Error {}

/** The standalone server of the build under `root`, with its static assets and public/ copied beside it. */
export function prepareStandaloneServer(root: string): string {
  const serverPath = path.join(root, STANDALONE_DIR, 'server.js');
  if (!existsSync(serverPath)) {
    throw new NoProductionBuild(
      `No standalone server at ${path.relative(root, serverPath)}: run \`npm run build\` first (next.config.mjs sets output: 'standalone').`,
    );
  }
  for (const [from, to] of STANDALONE_LAYOUT.slice(1)) {
    const source = path.join(root, from);
    if (existsSync(source)) cpSync(source, path.join(root, STANDALONE_DIR, to), { recursive: true, force: true });
  }
  return serverPath;
}

/** The command the launcher spawns for `mode` on `port`; `start` prepares the standalone folder first. */
export function nextServerCommand(mode: 'dev' | 'start', options: { root: string; port: number }): NextServerCommand {
  if (mode === 'dev') {
    return {
      command: path.join(options.root, 'node_modules/.bin/next'),
      args: ['dev', '--port', String(options.port)],
      cwd: options.root,
      env: {},
    };
  }
  const serverPath = prepareStandaloneServer(options.root);
  return {
    command: process.execPath,
    args: [serverPath],
    // server.js changes into its own folder anyway; start it there so relative paths agree from the first line.
    cwd: path.dirname(serverPath),
    env: {
      PORT: String(options.port),
      // All IPv4 interfaces, as in the image; server.js would otherwise bind to whatever HOSTNAME the shell exported.
      HOSTNAME: '0.0.0.0',
      KEEP_ALIVE_TIMEOUT: KEEP_ALIVE_TIMEOUT_MS,
      NODE_OPTIONS: serverNodeOptions(process.env.NODE_OPTIONS),
    },
  };
}
