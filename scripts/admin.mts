/**
 * Admin CLI for support staff: `npm run admin -- <command>`.
 *
 *   merchant create --email E --name N [--verified]   new merchant; prints its keys once
 *   merchant verify <merchantId>                       business verification done
 *   merchant list
 *   key create <merchantId> --mode test|live [--publishable [--allowed-origin URL]… [--redirect-origin URL]…]
 *   key revoke <keyId>
 *   wallets rotate-master-key                          re-seal every sealed column (lib/admin/sealed-columns.ts) under WALLET_MASTER_KEY
 *   gas-tank status                                    the gas tank's address, balances and gas spent per chain
 *   reconcile [--chain C]                              ledger vs chain: every address whose balance differs, with its charges
 *   audit-deposits [--chain C]                         one run of the slow pass over deposit addresses (late payments, stray tokens)
 *   recover-deposit request --chain C --deposit A --token T --amount N|all --to A --operator E --reason R
 *                                                      ask to move a token from a deposit address to A (a second operator approves)
 *   recover-deposit approve <recoveryId> --operator E  approve (not the requester): the transfer is recorded, then sent
 *   recover-deposit list                               stray tokens at deposit addresses, what was recovered, what awaits approval
 *   oauth signing-keys                                 the OpenID provider's signing keys and their state
 *   oauth rotate-signing-key                           a new signing key; the old ones stay published until their ID tokens expire
 *   backup [file]                                      the data, to a file (default $DATA_DIR/backups/…); prints where
 *   restore <file> [--force]                           the data from a backup; --force to replace a database holding data
 *
 * Add --json for machine-readable output. Works against DATABASE_URL, the embedded database of a
 * running `npm run dev`/`npm start`, or starts the embedded database itself. Refuses (exit 1, code
 * deployment_mismatch) to run with another master key than the database's server, or with development
 * defaults against a production database (lib/admin/server-start.ts).
 */
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { withAdminDatabase } from './lib/admin-database.mts';

if (existsSync('.env')) process.loadEnvFile('.env');

const USAGE = `usage: npm run admin -- <command> [--json]
  merchant create --email E --name N [--verified]
  merchant verify <merchantId>
  merchant list
  key create <merchantId> --mode test|live [--publishable [--allowed-origin URL]… [--redirect-origin URL]…]
  key revoke <keyId>
  wallets rotate-master-key
  gas-tank status
  reconcile [--chain C]
  audit-deposits [--chain C]
  recover-deposit request --chain C --deposit A --token T --amount N|all --to A --operator E --reason R
  recover-deposit approve <recoveryId> --operator E
  recover-deposit list
  oauth signing-keys
  oauth rotate-signing-key
  backup [file]
  restore <file> [--force]`;

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    email: { type: 'string' },
    name: { type: 'string' },
    verified: { type: 'boolean', default: false },
    mode: { type: 'string' },
    publishable: { type: 'boolean', default: false },
    'allowed-origin': { type: 'string', multiple: true, default: [] },
    'redirect-origin': { type: 'string', multiple: true, default: [] },
    json: { type: 'boolean', default: false },
    chain: { type: 'string' },
    deposit: { type: 'string' },
    token: { type: 'string' },
    amount: { type: 'string' },
    to: { type: 'string' },
    operator: { type: 'string' },
    reason: { type: 'string' },
    force: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
});

const [noun, verb, target] = positionals;
const asJson = values.json;

function output(json: unknown, text: string): void {
  console.log(asJson ? JSON.stringify(json, null, 2) : text);
}

function usageError(message: string): never {
  if (asJson) console.error(JSON.stringify({ error: { code: 'usage', message } }));
  else console.error(`${message}\n\n${USAGE}`);
  process.exit(2);
}

if (values.help || !noun) {
  console.log(USAGE);
  process.exit(noun ? 0 : 2);
}

try {
  await withAdminDatabase(async () => {
    const command = noun === 'backup' || noun === 'restore' ? noun : `${noun} ${verb ?? ''}`.trim();
    switch (command) {
      case 'backup': {
        const { backupDatabase } = await import('./lib/backup.mts');
        const directory = path.resolve(process.env.DATA_DIR!, 'backups');
        const file = path.resolve(verb ?? path.join(directory, `chargeport-${new Date().toISOString().replace(/[:.]/g, '-')}.backup.gz`));
        mkdirSync(path.dirname(file), { recursive: true });
        const summary = await backupDatabase(process.env.DATABASE_URL!, file);
        output({ backup: summary }, `Backup written to ${summary.file} (${summary.tables} tables, ${summary.rows} rows).`);
        break;
      }
      case 'restore': {
        if (!verb) usageError('restore needs the backup file');
        const { RestoreRefused, restoreDatabase } = await import('./lib/backup.mts');
        try {
          const summary = await restoreDatabase(process.env.DATABASE_URL!, path.resolve(verb), { force: values.force });
          output({ restore: summary }, `Restored ${summary.rows} rows of ${summary.tables} tables from ${summary.file}.`);
        } catch (error) {
          if (!(error instanceof RestoreRefused)) throw error;
          if (asJson) console.error(JSON.stringify({ error: { code: 'restore_refused', message: error.message } }));
          else console.error(`error: ${error.message}`);
          process.exitCode = 1;
        }
        break;
      }
      case 'merchant create': {
        if (!values.email || !values.name) usageError('merchant create needs --email and --name');
        const { createMerchant } = await import('@/lib/onboarding/create-merchant');
        const { merchant, keys } = await createMerchant({ email: values.email, name: values.name, verified: values.verified });
        const testKey = keys.find((k) => k.mode === 'test')!;
        const liveKey = keys.find((k) => k.mode === 'live');
        output(
          {
            merchant: { id: merchant.id, name: merchant.name, email: merchant.email, verified: merchant.verifiedAt !== null },
            testKey: { id: testKey.id, key: testKey.plaintext },
            liveKey: liveKey ? { id: liveKey.id, key: liveKey.plaintext } : null,
          },
          [
            `Merchant ${merchant.id} (${merchant.name}) created${merchant.verifiedAt ? ', verified' : ''}.`,
            `Test key (${testKey.id}):       ${testKey.plaintext}`,
            liveKey
              ? `Production key (${liveKey.id}): ${liveKey.plaintext}`
              : 'No production key: verify the merchant first (merchant verify).',
            'Keys are shown only now; they are stored as hashes.',
          ].join('\n'),
        );
        break;
      }
      case 'merchant verify': {
        if (!target) usageError('merchant verify needs a merchant id');
        const { verifyMerchant } = await import('@/lib/merchants/verify-merchant');
        const merchant = await verifyMerchant(target);
        output(
          { merchant: { id: merchant.id, verified: true, verifiedAt: merchant.verifiedAt } },
          `Merchant ${merchant.id} is verified. Issue a production key with: key create ${merchant.id} --mode live`,
        );
        break;
      }
      case 'merchant list': {
        const { listMerchants } = await import('@/lib/merchants/list-merchants');
        const merchants = await listMerchants();
        output(
          { merchants },
          merchants.length
            ? merchants
                .map((m) => `${m.id}  ${m.verified ? 'verified  ' : 'unverified'}  keys:${m.activeKeys}  ${m.name} <${m.email}>`)
                .join('\n')
            : 'No merchants.',
        );
        break;
      }
      case 'key create': {
        if (!target) usageError('key create needs a merchant id');
        if (values.mode !== 'test' && values.mode !== 'live') usageError('key create needs --mode test or --mode live');
        const { createApiKey } = await import('@/lib/api-keys/create-api-key');
        const { parseOrigins } = await import('@/lib/api-keys/publishable-origins');
        const key = await createApiKey({
          merchantId: target,
          mode: values.mode,
          kind: values.publishable ? 'publishable' : 'secret',
          allowedOrigins: parseOrigins(values['allowed-origin'].join(' '), 'allowed-origin'),
          allowedRedirectOrigins: parseOrigins(values['redirect-origin'].join(' '), 'redirect-origin'),
        });
        output(
          { key: { id: key.id, mode: key.mode, kind: key.kind, key: key.plaintext } },
          `Key ${key.id} (${key.kind}, ${key.mode}): ${key.plaintext}\nShown only now; it is stored as a hash.`,
        );
        break;
      }
      case 'key revoke': {
        if (!target) usageError('key revoke needs a key id');
        const { revokeApiKey } = await import('@/lib/api-keys/revoke-api-key');
        await revokeApiKey(target);
        output({ key: { id: target, revoked: true } }, `Key ${target} revoked.`);
        break;
      }
      case 'wallets rotate-master-key': {
        const { rotateMasterKey } = await import('@/lib/admin/rotate-master-key');
        const result = await rotateMasterKey();
        // Done only when no value of any registered column names an old key (a failed row is counted there too).
        const done = result.onOldKeys.length === 0;
        output(
          result,
          [
            `Current master key: ${result.masterKeyId}. Re-sealed ${result.resealed} rows${
              result.resealed
                ? ` (${Object.entries(result.resealedByKind)
                    .map(([kind, n]) => `${kind}: ${n}`)
                    .join(', ')})`
                : ''
            }; ${result.skipped} taken by another run.`,
            ...result.failed.map((f) => `  could not open the ${f.kind} of ${f.table} ${f.id}: ${f.reason}`),
            ...result.onOldKeys.map((c) => `  still on ${c.masterKeyId}: ${c.count} in ${c.column}`),
            done
              ? 'Done: everything is sealed with the current key; the previous keys can be removed from WALLET_MASTER_KEYS_PREVIOUS.'
              : 'Not done: add the missing keys to WALLET_MASTER_KEYS_PREVIOUS and run again. Keep the previous keys until this says done.',
          ].join('\n'),
        );
        if (!done) process.exitCode = 1;
        break;
      }
      case 'oauth signing-keys': {
        const { listSigningKeys } = await import('@/lib/oauth/signing-keys');
        const keys = await listSigningKeys();
        output(
          { keys },
          keys.length
            ? keys
                .map(
                  (k) =>
                    `${k.kid}  ${k.state.padEnd(9)} created ${k.createdAt.toISOString()}${k.publishedUntil ? `, published until ${k.publishedUntil.toISOString()}` : ''}`,
                )
                .join('\n')
            : 'No signing key yet: the first request to the OpenID provider creates one.',
        );
        break;
      }
      case 'oauth rotate-signing-key': {
        const { rotateSigningKey } = await import('@/lib/oauth/signing-keys');
        const result = await rotateSigningKey();
        output(
          result,
          [
            `New signing key ${result.kid}; running servers switch to it within 30 s.`,
            ...result.retired.map(
              (k) => `  retired ${k.kid}: stays in the JWKS until ${k.publishedUntil.toISOString()} (its last ID tokens expire)`,
            ),
          ].join('\n'),
        );
        break;
      }
      case 'gas-tank status': {
        const { gasTankReport } = await import('@/lib/transactions/gas-tank');
        const report = await gasTankReport();
        output(
          report,
          [
            `Gas tank ${report.address} on EVM chains, ${report.solanaAddress} on Solana (fund it with native coin on every chain you run)`,
            ...report.chains.map(
              (c) =>
                `  ${c.chain.padEnd(14)} balance ${c.balance ?? 'unreachable'} ${c.symbol}; spent ${c.spent} ${c.symbol} in ${c.topUps} top-ups/fees`,
            ),
          ].join('\n'),
        );
        break;
      }
      case 'reconcile': {
        const { CHAIN_NAMES } = await import('@/lib/chains/registry');
        const chain = values.chain?.toUpperCase();
        if (chain !== undefined && !(CHAIN_NAMES as readonly string[]).includes(chain)) usageError(`unknown chain: ${values.chain}`);
        const { reconcileChains } = await import('@/lib/ledger/reconcile-chains');
        const { formatAmount } = await import('@/lib/money');
        const results = await reconcileChains(chain ? { chains: [chain as (typeof CHAIN_NAMES)[number]] } : {});
        const lines = results.flatMap((r) => [
          r.error
            ? `${r.chain}: not reconciled (${r.error})`
            : `${r.chain} at block ${r.atBlock}: ${r.checked} balances checked, ${r.busy} skipped (transfers on their way), ${r.discrepancies.length} differ`,
          ...r.discrepancies.map(
            (d) =>
              `  ${d.address} (${d.holder}) ${d.symbol}: ledger ${formatAmount(d.expected, d.decimals)}, chain ${formatAmount(d.actual, d.decimals)}, difference ${formatAmount(d.difference, d.decimals)}${d.chargeIds.length ? `; charges ${d.chargeIds.join(', ')}` : ''}`,
          ),
        ]);
        output(
          JSON.parse(JSON.stringify(results, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))),
          lines.join('\n') || 'No EVM chain is served here.',
        );
        if (results.some((r) => r.discrepancies.length)) process.exitCode = 1;
        break;
      }
      case 'audit-deposits': {
        const { CHAIN_NAMES } = await import('@/lib/chains/registry');
        const chain = values.chain?.toUpperCase();
        if (chain !== undefined && !(CHAIN_NAMES as readonly string[]).includes(chain)) usageError(`unknown chain: ${values.chain}`);
        const { auditDepositAddresses } = await import('@/lib/ledger/audit-deposit-addresses');
        const results = await auditDepositAddresses(chain ? { chains: [chain as (typeof CHAIN_NAMES)[number]] } : {});
        output(
          JSON.parse(JSON.stringify(results, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))),
          results
            .map((r) =>
              r.error
                ? `${r.chain}: not audited (${r.error})`
                : `${r.chain} at block ${r.atBlock}: ${r.audited} deposit addresses read, ${r.busy} busy; ${r.latePayments} late payments and ${r.strayDeposits} stray deposits recorded`,
            )
            .join('\n') || 'No EVM chain is served here.',
        );
        break;
      }
      case 'recover-deposit request': {
        const { chain, deposit, token, amount, to, operator, reason } = values;
        if (!chain || !deposit || !token || !amount || !to || !operator || !reason)
          usageError('recover-deposit request needs --chain, --deposit, --token, --amount, --to, --operator and --reason');
        const { requestDepositRecovery } = await import('@/lib/ledger/recover-deposit');
        const recovery = await requestDepositRecovery({ chain, deposit, token, amount, to, operator, reason });
        output(
          { recovery },
          `Recovery ${recovery.id} requested by ${recovery.requestedBy}: ${recovery.amount} ${recovery.symbol} from ${recovery.fromAddress} (${recovery.chargeId}) to ${recovery.toAddress}.\nA second operator approves it: npm run admin -- recover-deposit approve ${recovery.id} --operator <their e-mail>`,
        );
        break;
      }
      case 'recover-deposit list': {
        const { listStrayHoldings } = await import('@/lib/ledger/recover-deposit');
        const holdings = await listStrayHoldings();
        output(
          JSON.parse(JSON.stringify(holdings, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))),
          holdings
            .map(
              (h) =>
                `${h.chain} ${h.address} (${h.chargeId}) token ${h.tokenAddress}: stray ${h.stray}, recovered ${h.recovered} (base units)${h.openRequests.length ? `; awaiting approval: ${h.openRequests.join(', ')}` : ''}`,
            )
            .join('\n') || 'No stray deposits recorded.',
        );
        break;
      }
      case 'recover-deposit approve': {
        if (!target || !values.operator) usageError('recover-deposit approve needs the recovery id and --operator');
        const { approveDepositRecovery } = await import('@/lib/ledger/recover-deposit');
        const recovery = await approveDepositRecovery({ recoveryId: target, operator: values.operator });
        output(
          { recovery },
          `Recovery ${recovery.id} approved by ${recovery.approvedBy}: ${recovery.amount} ${recovery.symbol} sent to ${recovery.toAddress} (transaction ${recovery.txHash}).`,
        );
        break;
      }
      default:
        usageError(`unknown command: ${command}`);
    }
  });
} catch (error) {
  const { DeploymentRefused } = await import('@/lib/admin/server-start');
  if (error instanceof DeploymentRefused) {
    // Nothing was read or written: the environment does not belong to this database's deployment.
    if (asJson) console.error(JSON.stringify({ error: { code: 'deployment_mismatch', message: error.message } }));
    else console.error(`error: ${error.message}`);
    process.exit(1);
  }
  const { isAppError } = await import('@/lib/errors');
  if (isAppError(error)) {
    if (asJson) console.error(JSON.stringify({ error: error.toBody() }));
    else console.error(`error: ${error.message}`);
    process.exit(1);
  }
  throw error;
}
