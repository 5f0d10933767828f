/**
 * The Google and Apple stand-ins (scripts/stack/identity-stand-ins.ts) as a process of their own, for the
 * e2e stack (the launcher starts them itself on `npm run dev`):
 *
 *   PORT=3394 APP_URL=http://localhost:3390 STAND_IN_CLIENT_SECRET=… STAND_IN_PROVIDERS=apple tsx scripts/identity-stand-ins.mts
 */
import { startIdentityStandIns, STAND_IN_PROVIDERS } from '@/scripts/stack/identity-stand-ins';

const providers = (process.env.STAND_IN_PROVIDERS ?? STAND_IN_PROVIDERS.join(','))
  .split(',')
  .filter((name): name is (typeof STAND_IN_PROVIDERS)[number] => (STAND_IN_PROVIDERS as readonly string[]).includes(name));
const standIns = await startIdentityStandIns({
  appUrl: process.env.APP_URL ?? 'http://localhost:3000',
  port: Number(process.env.PORT ?? 0),
  providers,
  clientSecret: process.env.STAND_IN_CLIENT_SECRET,
});
console.log(`Identity stand-ins (${providers.join(', ')}) on ${standIns.url}`);
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void standIns.stop().then(() => process.exit(0)));
