import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { E2E_DATA_DIR, E2E_SECRETS } from '../playwright.config';
import { prepareStandaloneServer } from '@/scripts/stack/next-server';

const STANDALONE = path.resolve('.next/standalone');
export const STANDALONE_SERVER = path.join(STANDALONE, 'server.js');

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * The environment of one more production process of the e2e deployment (jobs off): its database, its local
 * chains and its secrets, so it shares the e2e stack's data and sessions.
 */
export function productionInstanceEnv(appUrl: string): Record<string, string | undefined> {
  const runtime = JSON.parse(readFileSync(path.join(E2E_DATA_DIR, 'runtime.json'), 'utf8')) as {
    embeddedDatabaseUrl: string;
    localRpcUrls: Record<string, string>;
  };
  return {
    PATH: process.env.PATH,
    NODE_ENV: 'production',
    NEXT_TELEMETRY_DISABLED: '1',
    APP_URL: appUrl,
    RUN_JOBS_IN_WEB: 'false',
    // As the Dockerfile sets it: idle keep-alive connections outlive the client's, no reuse-while-closing reset.
    KEEP_ALIVE_TIMEOUT: '65000',
    LOG_LEVEL: 'warn',
    DATABASE_URL: runtime.embeddedDatabaseUrl,
    ...Object.fromEntries(Object.entries(runtime.localRpcUrls).map(([chain, url]) => [`RPC_URL_${chain}`, url])),
    LOCAL_CHAINS: Object.keys(runtime.localRpcUrls).join(','),
    LOCAL_CHAIN_NODES: 'true',
    ...E2E_SECRETS,
    PRICE_FEED_URL: '',
    // Sign-in codes to the dev outbox, as on the e2e stack (production requires a real sender otherwise).
    ALLOW_DEV_OUTBOX: 'true',
    SMS_PROVIDER: 'dev',
  };
}

export interface StandaloneServer {
  base: string;
  /** What the server printed so far (for failure messages). */
  output: () => string;
  stop: () => void;
}

/**
 * A second app server, started as the container image starts it (Dockerfile `app` target: `node
 * server.js` with `.next/static` copied beside it, jobs off), on the e2e stack's database and chains, on
 * a free port. `env` adds or overrides variables: a journey that needs a setting the main stack does not
 * have (WALLETCONNECT_PROJECT_ID) runs on one of these.
 */
export async function startStandaloneServer(env: Record<string, string> = {}): Promise<StandaloneServer> {
  // As the Dockerfile and `npm start` do: the standalone folder does not include the static assets.
  prepareStandaloneServer(process.cwd());
  const port = await freePort();
  const base = `http://localhost:${port}`;
  let output = '';
  const serverEnv: Record<string, string | undefined> = {
    ...productionInstanceEnv(base),
    PORT: String(port),
    HOSTNAME: '127.0.0.1',
    ...env,
  };
  const server: ChildProcess = spawn(process.execPath, [STANDALONE_SERVER], {
    cwd: STANDALONE,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: serverEnv as NodeJS.ProcessEnv,
  });
  server.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  server.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const stop = () => {
    if (server.pid && server.exitCode === null) process.kill(-server.pid, 'SIGTERM');
  };
  const deadline = Date.now() + 60_000;
  for (;;) {
    const ready = await fetch(`${base}/api/health/ready`).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) break;
    if (Date.now() > deadline || server.exitCode !== null) {
      stop();
      throw new Error(`the standalone server did not become ready:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return { base, output: () => output, stop };
}
