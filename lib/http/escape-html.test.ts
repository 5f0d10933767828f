import { describe, expect, it } from 'vitest';
import { escapeHtml } from './escape-html';

describe('escapeHtml', () => {
  it('leaves no character that could end a text node or an attribute value', () => {
    const hostile = `"><script>alert('x')</script><option value="`;
    const escaped = escapeHtml(hostile);
    expect(escaped).not.toMatch(/[<>"']/);
    expect(escaped).toBe('&#34;&#62;&#60;script&#62;alert(&#39;x&#39;)&#60;/script&#62;&#60;option value=&#34;');
  });

  it('escapes & first-class, so an existing entity is shown as typed', () => {
    expect(escapeHtml('Bosnia & Herzegovina')).toBe('Bosnia &#38; Herzegovina');
    expect(escapeHtml('&amp;')).toBe('&#38;amp;');
  });
});
