/**
 * Run as its own process by lib/contracts/fulfilment.test.ts: records a fulfilment's contract call with
 * the transaction engine (signed, in the database) and SIGKILLs itself the instant the transaction
 * commits — the worker dying between recording and broadcast. Whatever survives is what it wrote.
 *
 *   node --conditions=react-server --import tsx test/record-fulfilment-then-die.mts <fulfilmentId>
 */
import { recordFulfilment } from '@/lib/contracts/start-fulfilments';

const [fulfilmentId] = process.argv.slice(2);
if (!fulfilmentId) {
  console.error('usage: record-fulfilment-then-die.mts <fulfilmentId>');
  process.exit(2);
}
const step = await recordFulfilment(fulfilmentId);
console.log(`recorded: ${step.outcome}`);
process.kill(process.pid, 'SIGKILL');
