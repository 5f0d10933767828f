/** `npm run db:migrate`: apply drizzle/ migrations to DATABASE_URL, or to the embedded database. */
import { existsSync } from 'node:fs';
import { withAdminDatabase } from './lib/admin-database.mts';

if (existsSync('.env')) process.loadEnvFile('.env');
await withAdminDatabase(async () => {
  console.log('migrations applied');
});
