/**
 * "Bad input gets a clear error and changes nothing", held across every server action at once (as
 * app/api/bad-input.test.ts holds it for the merchant API).
 *
 * The actions come from the file system: every function exported by a 'use server' file of app/, lib/ or
 * components/ is called, signed in as a verified user who is the owner of a merchant (so the session and
 * permission checks pass and the input is what is judged), with:
 *  - form actions (`(state, form)` from userAction / memberAction / publicAction, and `(form)` ones): an
 *    empty form; a form whose every field the action reads is 5,000 characters (the fields are learnt by
 *    calling it: the names it reads with get / getAll / has and the `param` its refusal names, until no new
 *    one appears); the same fields carrying a NUL character;
 *  - actions called from client code (userCall / publicCall, plain arguments): `undefined`, `null`, `{}`,
 *    a number, a 5,000-character string, a string with a NUL character, and an object whose every field the
 *    action reads (learnt as for forms) is 5,000 characters, then carries a NUL.
 * Each must answer (not throw, but for Next's redirect where `REDIRECTS` says why) an error whose code is in
 * the error table at a 4xx status (an `internal_error` would be a bug the action's fallback hid) with a
 * message, and leave every row the user or the merchant owns as it was (`ownedRows`, from the catalog).
 * An action that does not answer with `{ error }` says what it answers instead in `OWN_ANSWER`; one not
 * called here says why in `NOT_CALLED`, or in `NO_INPUT` (a button: no input to be bad). Refusals a
 * step-up records by design (`REFUSAL_RECORDS`) are left out of the comparison.
 *
 * Known limit: fields are learnt in the order the action refuses them, so a field read only after another
 * was accepted (the code after the e-mail of confirmSignInCode, the card fields of the sandbox screen) is
 * not reached with 5,000 characters here.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { eq, sql } from 'drizzle-orm';
import { encode } from 'next-auth/jwt';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { issueSessionClaims } from '@/lib/auth/session-token';
import { getDb } from '@/lib/db/client';
import { merchantMembers, users } from '@/lib/db/schema';
import { ERROR_STATUS, type ErrorCode } from '@/lib/errors';
import { newUser } from '@/test/accounts';
import { newMerchant } from '@/test/fixtures';

const scope = vi.hoisted(() => ({ headers: new Headers({ host: 'localhost:3999' }), cookies: new Map<string, string>() }));
vi.mock('next/headers', async () => (await import('@/test/next-request-scope')).nextHeadersMock(scope));
vi.mock('next/cache', () => ({ revalidatePath: () => undefined, revalidateTag: () => undefined }));

const ROOT = path.resolve(import.meta.dirname, '..');
const SESSION_COOKIE = '__Host-chargeport.session';
const LONG = 'x'.repeat(5000);
const WITH_NUL = 'a\u0000b';

/** Actions not called here, and why. */
const NOT_CALLED: Record<string, string> = {
  'app/(auth)/actions.ts#signOutAction': 'reads no input; signs out and redirects by design',
  'app/(auth)/actions.ts#signOutEverywhereAction': 'reads no input; revokes every session and redirects by design',
};

/**
 * Actions that read no input (a button): an empty form or any argument is the whole request, so there is no bad
 * input to refuse; they are not called (they would do their work). The form ones are checked to read no field.
 */
const NO_INPUT: Record<string, string> = {
  'app/(account)/account/profile/connected-apps-actions.ts#revokeAllConnectedAppsAction': 'the "revoke all" button',
  'app/(account)/actions.ts#requestFirstPinCodeAction': 'e-mails the code that sets the first PIN',
  'app/(account)/account/security/actions.ts#requestFactorCodeAction': 'e-mails the factor-change code to the account',
  'app/(account)/account/security/actions.ts#startTotpAction': 'a new authenticator secret to scan (stored when confirmed)',
  'app/(account)/account/security/actions.ts#passkeyRegistrationOptionsAction': "the browser's registration options",
  'app/(auth)/actions.ts#getSiweNonce': 'a fresh SIWE nonce',
  'app/dashboard/actions.ts#requestVerificationAction': 'the "request verification" button',
  'app/dashboard/settings/profile/actions.ts#rollOnrampLinkKeyAction': 'the "roll the on-ramp link key" button',
};

/** Actions whose bad input ends in Next's redirect() or notFound() by design (a `<form action>` has no state to answer into). */
const REDIRECTS: Record<string, string> = {
  'app/(auth)/actions.ts#signInWithProvider': 'an unknown provider goes back to the sign-in page with its error',
  'app/checkout/[chargeId]/actions.ts#cancelCheckoutAction': 'a charge id that names nothing is the 404 page, as the checkout answers it',
};

/**
 * Rows a refusal writes by design, left out of the comparison: every refused step-up is recorded and, for a
 * merchant action, audited (issue 26, lib/accounts/reporting-refusal.ts) — a bad PIN is a refused step-up.
 */
const REFUSAL_RECORDS: Record<string, string> = {
  step_up_refusals: 'true',
  audit_log: `action = 'step_up.refused'`,
};

/** Arguments of one client-called action that reach further than the common ones. */
const EXTRA_ARGS: Record<string, Record<string, unknown[]>> = {
  'app/(auth)/actions.ts#signInWithSiwe': {
    'a message for this site whose URI is no URL': [
      {
        message: [
          'localhost:3999 wants you to sign in with your Ethereum account:',
          '0x000000000000000000000000000000000000dEaD',
          '',
          'URI: not a url',
          'Version: 1',
          'Chain ID: 1',
          'Nonce: abcdefgh12345678',
          `Issued At: ${new Date().toISOString()}`,
        ].join('\n'),
        signature: '0x00',
      },
    ],
  },
};

/** Actions that answer their own shape instead of `{ error }`: what a refusal looks like. */
const OWN_ANSWER: Record<string, { why: string; refused: (answer: unknown) => boolean }> = {
  'app/sandbox-provider/pay/[sessionId]/actions.ts#sandboxPayAction': {
    why: "the sandbox provider's payment screen answers its own state (status, message)",
    refused: (answer) => ['error', 'invalid'].includes((answer as { status: string }).status),
  },
  'app/dashboard/mode-actions.ts#setDashboardModeAction': {
    why: "the mode toggle: anything but 'live' is test; it answers nothing and sets a cookie only",
    refused: (answer) => answer === undefined,
  },
  'lib/geo/set-country-action.ts#setCountryAction': {
    why: 'the location selector: `{ ok: false }` for a country that is none',
    refused: (answer) => (answer as { ok: boolean }).ok === false,
  },
  'app/checkout/[chargeId]/swap-actions.ts#swapProgressAction': {
    why: "the swap panel's poll: null for a charge that has no swap",
    refused: (answer) => answer === null,
  },
};

/** `(form)` actions (a `<form action>` without useActionState) and client calls whose arity does not say which. */
const ONE_ARGUMENT_KIND: Record<string, 'form' | 'call'> = {
  'app/(auth)/actions.ts#signInWithProvider': 'form',
  'app/checkout/[chargeId]/actions.ts#cancelCheckoutAction': 'form',
  'app/dashboard/mode-actions.ts#setDashboardModeAction': 'form',
  'app/checkout/[chargeId]/swap-actions.ts#swapProgressAction': 'call',
  'lib/geo/set-country-action.ts#setCountryAction': 'call',
};

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? (entry.name === 'node_modules' ? [] : walk(full)) : [full];
  });
}

type Action = { name: string; fn: (...args: unknown[]) => Promise<unknown>; kind: 'state-form' | 'form' | 'call' };

async function loadActions(): Promise<Action[]> {
  const files = ['app', 'components', 'lib']
    .flatMap((dir) => walk(path.join(ROOT, dir)))
    .filter((file) => /\.tsx?$/.test(file) && !/\.test\.tsx?$/.test(file))
    .filter((file) => /^\s*(\/\/[^\n]*\n|\/\*[\s\S]*?\*\/\s*)*['"]use server['"]/.test(readFileSync(file, 'utf8')));
  const actions: Action[] = [];
  for (const file of files) {
    const relative = path.relative(ROOT, file).split(path.sep).join('/');
    const exports = (await import(file)) as Record<string, unknown>;
    for (const [exported, fn] of Object.entries(exports)) {
      if (typeof fn !== 'function') continue;
      const name = `${relative}#${exported}`;
      const kind = fn.length === 2 ? 'state-form' : fn.length === 0 ? 'call' : ONE_ARGUMENT_KIND[name];
      if (!kind) throw new Error(`${name} takes one argument: say in ONE_ARGUMENT_KIND whether it is a form or a call`);
      actions.push({ name, fn: fn as Action['fn'], kind });
    }
  }
  return actions;
}

let merchantId: string;
let userId: string;

async function signIn(): Promise<void> {
  scope.cookies.clear();
  const claims = (await issueSessionClaims(userId, { secondFactorPassed: true }))!;
  scope.cookies.set(SESSION_COOKIE, await encode({ token: claims, secret: process.env.AUTH_SECRET!, salt: SESSION_COOKIE }));
}

/**
 * Every row the user or the merchant owns, per table, as count and digest (an update is caught as well as
 * an insert or a delete): the tables with a user_id or merchant_id, those hanging off the merchant's charges
 * or endpoints, and the user's and the merchant's own rows. Found from the catalog: a new table is included.
 */
async function ownedRows(): Promise<Record<string, string>> {
  const db = getDb();
  const columns = (await db.execute(sql`
    select table_name, column_name from information_schema.columns
    where table_schema = 'public' and column_name in ('merchant_id', 'user_id', 'charge_id', 'endpoint_id')
      and table_name in (select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE')
    order by table_name, column_name`)) as unknown as { table_name: string; column_name: string }[];
  const scopeOf: Record<string, string> = {
    merchant_id: `merchant_id = '${merchantId}'`,
    user_id: `user_id = '${userId}'`,
    charge_id: `charge_id in (select id from charges where merchant_id = '${merchantId}')`,
    endpoint_id: `endpoint_id in (select id from webhook_endpoints where merchant_id = '${merchantId}')`,
  };
  const byTable = new Map<string, string[]>([
    ['users', [`id = '${userId}'`]],
    ['merchants', [`id = '${merchantId}'`]],
  ]);
  for (const { table_name, column_name } of columns) byTable.set(table_name, [...(byTable.get(table_name) ?? []), scopeOf[column_name]!]);
  const selects = [...byTable].map(
    ([table, wheres]) =>
      `select '${table}' as table_name, count(*) || ':' || coalesce(md5(string_agg(t::text, '|' order by t::text)), '') as state
       from "${table}" t where (${wheres.map((where) => `(${where})`).join(' or ')}) and not (${REFUSAL_RECORDS[table] ?? 'false'})`,
  );
  const rows = (await db.execute(sql.raw(selects.join('\nunion all\n')))) as unknown as { table_name: string; state: string }[];
  return Object.fromEntries(rows.map((row) => [row.table_name, row.state]));
}

/** A form that records the names the action reads. */
class RecordingForm extends FormData {
  constructor(
    fields: Record<string, string>,
    readonly read: Set<string>,
  ) {
    super();
    for (const [name, value] of Object.entries(fields)) super.set(name, value);
  }
  override get(name: string) {
    this.read.add(name);
    return super.get(name);
  }
  override getAll(name: string) {
    this.read.add(name);
    return super.getAll(name);
  }
  override has(name: string) {
    this.read.add(name);
    return super.has(name);
  }
}

/** Names read off an object that are not fields (what JavaScript and zod ask of any object). */
const NOT_FIELDS = new Set(['then', 'toJSON', 'constructor', 'valueOf', 'toString', 'length', 'prototype']);

/** An argument object with `fields` set to `value`, recording the keys the action reads. */
function recordingObject(fields: Set<string>, value: string, read: Set<string>): Record<string, string> {
  return new Proxy(Object.fromEntries([...fields].map((name) => [name, value])), {
    get(target, key, receiver) {
      if (typeof key === 'string' && /^[A-Za-z]\w*$/.test(key) && !NOT_FIELDS.has(key)) read.add(key);
      return Reflect.get(target, key, receiver) as unknown;
    },
  });
}

type Outcome = { threw?: unknown; answer?: unknown };

async function run(action: Action, input: { form?: Record<string, string>; args?: unknown[] }, read = new Set<string>()): Promise<Outcome> {
  await signIn();
  try {
    if (action.kind === 'call') return { answer: await action.fn(...(input.args ?? [])) };
    const form = new RecordingForm(input.form ?? {}, read);
    return { answer: await (action.kind === 'form' ? action.fn(form) : action.fn({}, form)) };
  } catch (error) {
    return { threw: error };
  }
}

const describeOutcome = (outcome: Outcome) =>
  outcome.threw !== undefined
    ? `threw ${outcome.threw instanceof Error ? `${outcome.threw.constructor.name}: ${outcome.threw.message}` : String(outcome.threw)}`.slice(
        0,
        600,
      )
    : `answered ${JSON.stringify(outcome.answer)?.slice(0, 600)}`;

/** The rule: a clear refusal, and nothing written. */
async function expectRefusedUntouched(action: Action, input: { form?: Record<string, string>; args?: unknown[] }, read?: Set<string>) {
  const before = await ownedRows();
  const outcome = await run(action, input, read);
  const after = await ownedRows();
  const seen = `${action.name}(${JSON.stringify(input).slice(0, 200)}) ${describeOutcome(outcome)}`;
  if (outcome.threw !== undefined) {
    const digest = String((outcome.threw as { digest?: unknown }).digest ?? '');
    const nextNavigation = digest.startsWith('NEXT_REDIRECT') || digest === 'NEXT_HTTP_ERROR_FALLBACK;404';
    expect(action.name in REDIRECTS && nextNavigation, seen).toBe(true);
  } else if (action.name in OWN_ANSWER) {
    expect(OWN_ANSWER[action.name]!.refused(outcome.answer), seen).toBe(true);
  } else {
    const error = (outcome.answer as { error?: { code?: string; message?: string } } | undefined)?.error;
    expect(error, seen).toEqual(expect.objectContaining({ code: expect.any(String), message: expect.any(String) }));
    const status = ERROR_STATUS[error!.code as ErrorCode];
    expect(status, `${seen}: a code of the error table`).toBeDefined();
    expect(status, `${seen}: a 4xx (a 5xx is a bug)`).toBeLessThan(500);
    expect(error!.message!.trim().length, seen).toBeGreaterThan(5);
  }
  const written = Object.keys({ ...before, ...after }).filter((table) => before[table] !== after[table]);
  expect(written, `${seen}: nothing the user or merchant owns was written`).toEqual([]);
  return outcome;
}

const paramOf = (outcome: Outcome): string | undefined => {
  const error = (outcome.answer as { error?: { param?: string; details?: { param?: string } } } | undefined)?.error;
  return error?.param ?? error?.details?.param;
};

const actions = await loadActions();

beforeAll(async () => {
  merchantId = (await newMerchant()).id;
  userId = await newUser();
  await getDb().update(users).set({ emailVerifiedAt: new Date() }).where(eq(users.id, userId));
  await getDb().insert(merchantMembers).values({ merchantId, userId, role: 'owner' });
});

describe('which actions are held', () => {
  it('every exported action is found; the exemption lists name actions that exist', () => {
    const names = actions.map((action) => action.name);
    expect(names.length).toBeGreaterThan(60);
    for (const list of [NOT_CALLED, NO_INPUT, REDIRECTS, OWN_ANSWER, ONE_ARGUMENT_KIND, EXTRA_ARGS]) {
      expect(Object.keys(list).filter((name) => !names.includes(name))).toEqual([]);
    }
  });
});

// A client-called action without input has nothing to check; a form one is checked to read no field.
const held = actions.filter((action) => !(action.name in NOT_CALLED) && !(action.name in NO_INPUT && action.kind === 'call'));
for (const action of held) {
  describe(action.name, () => {
    if (action.name in NO_INPUT) {
      it('reads no field (the source says so)', () => {
        const [file, name] = action.name.split('#') as [string, string];
        const source = readFileSync(path.join(ROOT, file), 'utf8');
        const body = source.slice(source.indexOf(`export const ${name} =`)).split('\nexport ')[0]!;
        expect(body).not.toMatch(/\bform\b/);
      });
      return;
    }
    if (action.kind === 'call') {
      const args: Record<string, unknown[]> = {
        'no argument (undefined)': [undefined],
        null: [null],
        '{}': [{}],
        'a number': [42],
        'a 5,000-character string': [LONG],
        'a string with a NUL': [WITH_NUL],
        ...EXTRA_ARGS[action.name],
      };
      for (const [name, value] of Object.entries(args)) it(name, () => expectRefusedUntouched(action, { args: value }));

      it('an object whose every field it reads is 5,000 characters long; and with a NUL', async () => {
        // Learnt as for forms: the keys it reads from the object (a Proxy records them) and the `param` it names.
        const read = new Set<string>();
        const fields = new Set<string>();
        for (let round = 0; round < 8; round++) {
          const size = fields.size;
          const outcome = await expectRefusedUntouched(action, { args: [recordingObject(fields, LONG, read)] });
          for (const name of read) fields.add(name);
          const param = paramOf(outcome)?.replace(/^0\./, '').split('.')[0];
          if (param) fields.add(param);
          if (round > 0 && fields.size === size) break;
        }
        if (fields.size) await expectRefusedUntouched(action, { args: [recordingObject(fields, WITH_NUL, new Set())] });
      });
      return;
    }

    it('an empty form; every field it reads 5,000 characters long; and with a NUL', async () => {
      const read = new Set<string>();
      const first = await expectRefusedUntouched(action, { form: {} }, read);
      const fields = new Set(read);
      if (paramOf(first)) fields.add(paramOf(first)!);
      // Learn the fields: each round fills every name seen so far, until the action reads no new one.
      for (let round = 0; round < 8; round++) {
        const size = fields.size;
        const outcome = await expectRefusedUntouched(action, { form: Object.fromEntries([...fields].map((f) => [f, LONG])) }, read);
        for (const name of read) fields.add(name);
        if (paramOf(outcome)) fields.add(paramOf(outcome)!);
        if (fields.size === size) break;
      }
      if (fields.size) await expectRefusedUntouched(action, { form: Object.fromEntries([...fields].map((f) => [f, WITH_NUL])) });
    });
  });
}
