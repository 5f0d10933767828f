/**
 * Names that tell the truth (CONTRIBUTING.md, "File names"): a file under lib/ is named after what it exports, so a
 * search for a function finds its file. A file passes when every word of its name appears (stemmed: "verify" ~
 * "verification", "charges" ~ "charge") in one of its exports' names, or it is one of the noun modules below,
 * each with the reason it holds several things under one name.
 */
import { execSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/** Nouns any folder may use: the domain's statuses, zod schemas, types, errors, settings. */
const NOUN_NAMES = new Set(['state', 'schemas', 'types', 'errors', 'config']);

/** Noun modules: a scheme whose parts must agree, a table of constants, pure math, a client or registry. */
const NOUN_MODULES: Record<string, string> = {
  'lib/accounts/verification-codes.ts': 'issue and consume one code scheme (hash, TTL, attempts)',
  'lib/api-keys/key-material.ts': 'generate, hash and recognise one key format',
  'lib/api/openapi-examples.ts': 'the examples the OpenAPI document shows',
  'lib/chains/smart-account-contracts.ts': 'the addresses of the smart-account contracts every chain shares',
  'lib/api/server-actions.ts': 'the one server-action wrapper and its contexts',
  'lib/auth/session-token.ts': 'issue and check one session-claims format',
  'lib/chains/constant-product.ts': 'pure x·y=k math',
  'lib/chains/registry.ts': 'the chains and tokens served',
  'lib/db/client.ts': 'the database clients',
  'lib/http/response-envelope.ts': 'the `{ data, error }` envelope: ok and fail',
  'lib/ids.ts': 'prefixed ids: make and recognise',
  'lib/keyring/envelope.ts': 'seal, open and reseal one envelope format',
  'lib/money.ts': 'base-unit amounts: parse, format, sum',
  'lib/oauth/token-lifetimes.ts': 'the OAuth token lifetimes, one table',
  'lib/onramp/fiat-math.ts': 'pure fiat-cents math',
  'lib/onramp/providers/wire.ts': 'helpers every provider adapter shares on the wire',
  'lib/webhooks/delivery-types.ts': 'the delivery types engine and callers share',
  'lib/transactions/solana/solana-spend-rules.ts': 'the money rules a Solana spend meets when recorded and when re-signed',
};

/** The database tables, one file per group of tables (drizzle's schema). */
const NOUN_FOLDERS = ['lib/db/schema/'];

const words = (name: string) =>
  name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[\s_]+/)
    .filter(Boolean);
const stem = (word: string) =>
  word.length <= 4
    ? word.replace(/(?<=...)s$/, '')
    : word.replace(/(ification|ation|ion|ies|es|s|ing|ed|e|y)$/, '').slice(0, Math.max(4, word.length - 4));
const squash = (text: string) => text.replace(/[-_]/g, '').toLowerCase();

/** Whether an export's name carries every word of the file's name. */
function nameMatches(fileBase: string, exportName: string): boolean {
  if (squash(exportName).includes(squash(fileBase))) return true;
  const exportWords = words(exportName);
  return fileBase.split('-').every((word) => exportWords.some((candidate) => candidate === word || candidate.startsWith(stem(word))));
}

function exportsOf(source: string): string[] {
  return [...source.matchAll(/export (?:default )?(?:async )?(?:function\*? ?|const|let|class|interface|type|enum) ([A-Za-z0-9_]+)/g)].map(
    (match) => match[1]!,
  );
}

describe('file names', () => {
  const files = execSync("git ls-files 'lib/*.ts' 'lib/**/*.ts'", { encoding: 'utf8' })
    .trim()
    .split('\n')
    .filter((file) => !/\.(test|d)\.ts$/.test(file));

  it('match an export of the file, or the file is a named noun module', () => {
    const misnamed = files.filter((file) => {
      const base = path.basename(file, '.ts');
      if (NOUN_NAMES.has(base) || file in NOUN_MODULES || NOUN_FOLDERS.some((folder) => file.startsWith(folder))) return false;
      const names = exportsOf(readFileSync(file, 'utf8'));
      return names.length > 0 && !names.some((name) => nameMatches(base, name));
    });
    expect(misnamed).toEqual([]);
  });

  it('the allow-list names files that exist', () => {
    expect(Object.keys(NOUN_MODULES).filter((file) => !files.includes(file))).toEqual([]);
  });

  it('the matcher tells a true name from a wrong one', () => {
    expect(nameMatches('create-charge', 'createCharge')).toBe(true);
    expect(nameMatches('find-user', 'findUserByEmail')).toBe(true);
    expect(nameMatches('verify-email', 'startEmailVerification')).toBe(true);
    expect(nameMatches('sweep-charges', 'sweepDueCharges')).toBe(true);
    expect(nameMatches('register-oauth-paths', 'registerOAuthPaths')).toBe(true);
    expect(nameMatches('watch-chain', 'pollChain')).toBe(false);
    expect(nameMatches('members', 'inviteMember')).toBe(true); // a family file passes the words test; splits are reviewed
    expect(nameMatches('owner-hold', 'requireNoWithdrawalHold')).toBe(false);
  });
});
