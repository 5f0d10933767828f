import { escapeHtml } from '@/lib/http/escape-html';
import { LOCATION_OPTIONS_ID } from './location-options-id';

/**
 * The location picker's ~250 options as one inert <template>, placed by the page after its content so the
 * first paint does not wait for them (LocationSelector moves them in; ADR 0031). One HTML string, names
 * escaped: a fixed list (ISO codes, `Intl` names), never React elements.
 */
export function LocationOptions({ country, options }: { country: string; options: { code: string; name: string }[] }) {
  const html = options
    .map(
      (option) =>
        `<option value="${escapeHtml(option.code)}"${option.code === country ? ' selected' : ''}>${escapeHtml(option.name)}</option>`,
    )
    .join('');
  return <template id={LOCATION_OPTIONS_ID} dangerouslySetInnerHTML={{ __html: html }} />;
}
