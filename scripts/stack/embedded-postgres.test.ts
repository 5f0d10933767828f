import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { startEmbeddedPostgres } from './embedded-postgres';

describe('embedded PostgreSQL', () => {
  it('keeps data across restarts and picks a free port each time', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'chargeport-pg-'));
    try {
      const first = await startEmbeddedPostgres({ dataDir });
      const sql1 = postgres(first.url, { onnotice: () => {} });
      await sql1`create table kept (value text)`;
      await sql1`insert into kept values ('survives')`;
      await sql1.end();
      await first.stop();

      const second = await startEmbeddedPostgres({ dataDir });
      try {
        const sql2 = postgres(second.url, { onnotice: () => {} });
        const rows = await sql2`select value from kept`;
        const [version] = await sql2`show server_version`;
        await sql2.end();
        expect(rows.map((r) => r.value)).toEqual(['survives']);
        expect(Number(String(version!.server_version).split('.')[0])).toBeGreaterThanOrEqual(16);
      } finally {
        await second.stop();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
