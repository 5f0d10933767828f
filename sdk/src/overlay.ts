/**
 * The overlay `pay()` lays over the merchant's page while the checkout popup is open: a dimmed
 * backdrop, a short explanation, "Show window" (focus the popup) and "Cancel payment". Built with
 * plain DOM calls and inline styles, so it needs no stylesheet and cannot clash with the page's CSS.
 *
 * Keyboard: focus moves to "Show window" and Tab cycles between the two buttons; Escape cancels.
 * Removing it gives the focus back to the element that had it.
 */

export interface OverlayActions {
  onShowWindow(): void;
  onCancel(): void;
}

/** Above anything a page is likely to stack. */
const TOP_Z_INDEX = '2147483647';
let overlayCount = 0;

/** Shows the overlay; the returned function removes it (calling it again does nothing). */
export function showOverlay(doc: Document, actions: OverlayActions): () => void {
  const titleId = `chargeport-pay-title-${++overlayCount}`;
  const previousFocus = doc.activeElement instanceof HTMLElement ? doc.activeElement : null;

  const backdrop = element(doc, 'div', {
    position: 'fixed',
    inset: '0',
    zIndex: TOP_Z_INDEX,
    display: 'flex',
    alignItems: 'center',
    justifyContent: 'center',
    padding: '16px',
    background: 'rgba(15, 23, 42, 0.6)',
    fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif',
  });
  backdrop.setAttribute('data-chargeport-overlay', '');

  const dialog = element(doc, 'div', {
    boxSizing: 'border-box',
    width: '100%',
    maxWidth: '380px',
    padding: '24px',
    borderRadius: '16px',
    background: '#ffffff',
    color: '#0f172a',
    boxShadow: '0 20px 40px rgba(15, 23, 42, 0.3)',
    textAlign: 'center',
  });
  dialog.setAttribute('role', 'dialog');
  dialog.setAttribute('aria-modal', 'true');
  dialog.setAttribute('aria-labelledby', titleId);

  const title = element(doc, 'h2', { margin: '0 0 8px', fontSize: '18px', lineHeight: '1.4', fontWeight: '600' });
  title.id = titleId;
  title.textContent = 'Complete your payment in the Chargeport window';

  const hint = element(doc, 'p', { margin: '0 0 20px', fontSize: '14px', lineHeight: '1.5', color: '#475569' });
  hint.textContent = 'This page updates by itself when you are done. Cannot see the window? Bring it to the front.';

  const buttonBase = {
    display: 'block',
    width: '100%',
    boxSizing: 'border-box',
    padding: '10px 16px',
    borderRadius: '10px',
    fontSize: '15px',
    fontWeight: '600',
    fontFamily: 'inherit',
    cursor: 'pointer',
  } satisfies Partial<CSSStyleDeclaration>;
  const showButton = element(doc, 'button', { ...buttonBase, border: '0', background: '#4f46e5', color: '#ffffff' });
  showButton.type = 'button';
  showButton.textContent = 'Show window';
  const cancelButton = element(doc, 'button', {
    ...buttonBase,
    marginTop: '8px',
    border: '1px solid #cbd5e1',
    background: '#ffffff',
    color: '#334155',
  });
  cancelButton.type = 'button';
  cancelButton.textContent = 'Cancel payment';

  dialog.append(title, hint, showButton, cancelButton);
  backdrop.append(dialog);

  showButton.addEventListener('click', () => actions.onShowWindow());
  cancelButton.addEventListener('click', () => actions.onCancel());
  // A click on the backdrop must not leave the focus on the page underneath.
  backdrop.addEventListener('mousedown', (event) => {
    if (event.target === backdrop) {
      event.preventDefault();
      showButton.focus();
    }
  });
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === 'Escape') {
      event.preventDefault();
      actions.onCancel();
    } else if (event.key === 'Tab') {
      // Trap-lite: Tab and Shift+Tab stay on the overlay's two buttons.
      event.preventDefault();
      (doc.activeElement === showButton ? cancelButton : showButton).focus();
    }
  };
  doc.addEventListener('keydown', onKeyDown, true);

  doc.body.append(backdrop);
  showButton.focus();

  let removed = false;
  return () => {
    if (removed) return;
    removed = true;
    doc.removeEventListener('keydown', onKeyDown, true);
    backdrop.remove();
    if (previousFocus?.isConnected) previousFocus.focus();
  };
}

function element<K extends keyof HTMLElementTagNameMap>(
  doc: Document,
  tag: K,
  style: Partial<CSSStyleDeclaration>,
): HTMLElementTagNameMap[K] {
  const node = doc.createElement(tag);
  Object.assign(node.style, style);
  return node;
}
