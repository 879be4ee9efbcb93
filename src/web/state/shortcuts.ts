/** Ctrl/⌘+Z undoes one step, Ctrl/⌘+Shift+Z (or Ctrl+Y) redoes, outside text fields, as in any editor. */
import { useEffect } from 'preact/hooks';
import { PANE_TOOLS } from './pane-tools.js';
import type { Studio } from './use-studio.js';

export function useHistoryShortcuts(studio: Studio): void {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (!(e.ctrlKey || e.metaKey) || e.altKey) return;
      const target = e.target as HTMLElement | null;
      if (target?.closest('input, textarea, select, [contenteditable="true"]')) return;
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
