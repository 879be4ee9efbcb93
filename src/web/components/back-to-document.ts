/**
 * The keys back to the document, as Photoshop's options bar gives them after Enter: to the words being typed, else
 * to the canvas (its keys, V or Ctrl+Z, then act on the document, not on the field).
 */
export function backToDocument(from: Element): void {
  const canvas = from.closest<HTMLElement>('.canvas-viewport');
  const to = canvas?.querySelector<HTMLElement>('.text-editor') ?? canvas;
  // Without the ring a canvas tabbed to shows: the designer's eyes are on the document, not on where the keys went.
  to?.focus({ preventScroll: true, focusVisible: false });
}
