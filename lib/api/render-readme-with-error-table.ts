/**
 * The API reference (docs/api.md) with its error table regenerated and formatted the way `prettier --check` wants it, so the
 * script's output passes the format check and the staleness test can compare text exactly.
 */
import { format, resolveConfig } from 'prettier';
import { errorTableMarkdown, replaceReadmeErrorTable } from './error-table';

export async function renderReadmeWithErrorTable(readme: string): Promise<string> {
  const options = (await resolveConfig('docs/api.md')) ?? {};
  return format(replaceReadmeErrorTable(readme, errorTableMarkdown()), { ...options, parser: 'markdown' });
}
