/** The other auth page (sign-in ↔ sign-up) keeping where to return and the address typed or invited. */
export function withReturn(path: '/signin' | '/signup', callbackUrl?: string, email?: string): string {
  const query = new URLSearchParams();
  if (callbackUrl) query.set('callbackUrl', callbackUrl);
  if (email) query.set('email', email);
  const search = query.toString();
  return search ? `${path}?${search}` : path;
}
