/**
 * Run as its own process by lib/contracts/fulfilment.test.ts: one pass of the chain watcher (which makes
 * a paid charge succeed), then SIGKILL — a worker dying between the charge succeeding and the fulfilment
 * job, before any fulfilment code of its own could run.
 *
 *   node --conditions=react-server --import tsx test/settle-charge-then-die.mts <chain>
 */
import type { ChainName } from '@/lib/chains/registry';
import { pollChain } from '@/lib/payments/poll-chain';

const chain = process.argv[2] as ChainName;
await pollChain(chain);
process.kill(process.pid, 'SIGKILL');
