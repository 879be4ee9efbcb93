/** Ctrl/⌘+Z undoes one step, Ctrl/⌘+Shift+Z (or Ctrl+Y) redoes, outside text fields, as in any editor. */
import { useEffect } from 'preact/hooks';
import { PANE_TOOLS } from './pane-tools.js';
import type { Studio } from './use-studio.js';

/** Inputs whose text the browser edits (and undoes) itself; a slider, a switch or a colour well has no text. */
const TEXT_INPUTS = new Set(['', 'text', 'search', 'number', 'email', 'url', 'tel', 'password']);

/** Whether a key pressed in `target` belongs to the field's own text editing (its own Ctrl+Z). */
export function editsText(target: Element | null): boolean {
  const field = target?.closest('input, textarea, [contenteditable="true"]');
  if (!field) return false;
  if (field.tagName !== 'INPUT') return true;
  return TEXT_INPUTS.has((field.getAttribute('type') ?? '').toLowerCase());
}

export function useHistoryShortcuts(studio: Studio): void {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (!(e.ctrlKey || e.metaKey) || e.altKey) return;
      // After the opacity slider, the blend mode or a switch, Ctrl+Z undoes that change as in any editor; in a
      // text field it is the field's own undo.
      if (editsText(e.target as Element | null)) return;
      const key = e.key.toLowerCase();
      const redo = (key === 'z' && e.shiftKey) || key === 'y';
      if (key !== 'z' && !redo) return;
      if (!studio.state?.active || studio.busy) return;
      e.preventDefault();
      void studio.run([{ name: redo ? PANE_TOOLS.redo : PANE_TOOLS.undo, arguments: {} }]);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [studio]);
}
