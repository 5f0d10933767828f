'use client';

import { useEffect, useRef, useState } from 'react';

/** A line item's picture from the merchant's host; a neutral tile when it has none or it fails to load. */
export function ItemImage({ src }: { src?: string }) {
  const [failed, setFailed] = useState(false);
  const image = useRef<HTMLImageElement>(null);
  // An image that failed before hydration fired its error event before React listened: check it once.
  useEffect(() => {
    const element = image.current;
    if (element?.complete && element.naturalWidth === 0) setFailed(true);
  }, []);
  if (!src || failed) return <div aria-hidden className="size-12 shrink-0 rounded-lg bg-slate-100" data-testid="item-image-placeholder" />;
  return (
    // Merchant-hosted images: any origin, so a plain img (next/image would need each host configured).
    // eslint-disable-next-line @next/next/no-img-element
    <img
      ref={image}
      src={src}
      alt=""
      width={48}
      height={48}
      onError={() => setFailed(true)}
      className="size-12 shrink-0 rounded-lg bg-slate-100 object-cover"
      data-testid="item-image"
    />
  );
}
