/** Text or an attribute value for HTML written as a string (the few places React does not escape for us). */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}
