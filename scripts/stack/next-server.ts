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
    },
  };
}
