import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { getDb } from '@/lib/db/client';
import { latestCode, uniqueEmail } from '@/test/accounts';
import { exportPrivateKey } from '@/lib/wallets/export-private-key';
import { listWallets } from '@/lib/wallets/list-wallets';
import { completeEmailSignUp, startEmailSignUp } from './email-sign-up';
import { startEmailSignIn } from './email-sign-in';
import { setPin } from './set-pin';

/** Every text-like value of every column of every table, as one string per row. */
async function dumpDatabase(): Promise<string> {
  const tables = await getDb().execute<{ table_name: string }>(
    sql`select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'`,
  );
  const rows: string[] = [];
  for (const { table_name } of tables) {
    const result = await getDb().execute(sql.raw(`select t::text as row from "${table_name.replaceAll('"', '')}" t`));
    for (const row of result) rows.push(String((row as { row: string }).row));
  }
  // Timestamps carry 6-digit microseconds that could equal a code by chance: leave them out.
  return rows.join('\n').replace(/\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(\.\d+)?([+-]\d{2}(:\d{2})?)?/g, '<time>');
}

describe('no secret is stored in clear text', () => {
  it('codes, the PIN and private keys appear in no column of any table', async () => {
    const email = uniqueEmail('secrets');
    await startEmailSignUp({ email });
    const signUpCode = latestCode(email);
    const { userId } = await completeEmailSignUp({ email, code: signUpCode });
    await startEmailSignIn({ email });
    const pendingSignInCode = latestCode(email);
    const pin = '583920';
    await setPin({ userId, pin, confirm: pin });
    const exported = await Promise.all(
      (await listWallets(userId)).map((wallet) =>
        exportPrivateKey({ userId, walletId: wallet.id, pin, ip: '203.0.113.9', userAgent: 'test' }),
      ),
    );

    const dump = await dumpDatabase();
    expect(dump).toContain(userId); // the dump does cover this account
    for (const secret of [signUpCode, pendingSignInCode]) expect(dump).not.toMatch(new RegExp(`(^|[^0-9])${secret}([^0-9]|$)`));
    expect(dump).not.toMatch(new RegExp(`(^|[^0-9])${pin}([^0-9]|$)`));
    for (const key of exported) {
      expect(dump).not.toContain(key.privateKey);
      expect(dump.toLowerCase()).not.toContain(key.privateKey.replace(/^0x/, '').toLowerCase());
    }
  });
});
