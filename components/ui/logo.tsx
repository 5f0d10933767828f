import Link from 'next/link';

/** The mark: a rounded square in the brand colour with a lightning bolt (a charge), as in public/icon.svg. */
function LogoMark({ className = 'size-7' }: { className?: string }) {
  return (
    <svg viewBox="0 0 32 32" className={className} aria-hidden="true" focusable="false">
      <rect width="32" height="32" rx="8" fill="#1f57d8" />
      <path d="M18.5 5 9 18h6l-1.5 9L23 14h-6l1.5-9Z" fill="#fff" />
    </svg>
  );
}

/** The mark and the name, linking home (or to `href`): the first thing in every header. */
export function Logo({ href = '/', className = '' }: { href?: string; className?: string }) {
  return (
    <Link href={href} className={`inline-flex items-center gap-2 rounded-md font-semibold tracking-tight text-slate-900 ${className}`}>
      <LogoMark />
      <span>Chargeport</span>
    </Link>
  );
}
