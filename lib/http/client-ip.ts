/** The client's IP as the reverse proxy reports it (first `x-forwarded-for` hop, else `x-real-ip`), or null. */
export function clientIpFrom(headers: { get(name: string): string | null }): string | null {
  return headers.get('x-forwarded-for')?.split(',')[0]?.trim() || headers.get('x-real-ip') || null;
}
