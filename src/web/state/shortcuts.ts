/**
 * Keyboard shortcuts, as in Photoshop. Anywhere in the page: Ctrl/⌘+S saves the active document (to its file, or a
 * new one named after it), Ctrl/⌘+Shift+S opens 另存为 (the browser's own "save page" would only save the
 * studio's HTML) and Ctrl/⌘+Alt+Shift+W opens 导出图像 (Export As). Outside text fields: Ctrl/⌘+Z undoes one step, Ctrl/⌘+Shift+Z (or Ctrl+Y) redoes; Ctrl/⌘+J
 * duplicates the selected layers, Ctrl/⌘+E merges them (one: down into the layer below), Ctrl/⌘+G puts them in a
 * new group (组 N); Ctrl/⌘+A selects all, Ctrl/⌘+D deselects and Ctrl/⌘+Shift+I inverts the selection (where
 * the browser leaves that key to the page: some keep it for their developer tools); Ctrl/⌘+] and Ctrl/⌘+[ move
 * the current layer one place up or down, with Shift to the top or bottom of its group (Layer › Arrange). A press
 * made while the studio's own calls run is sent after them (the server runs a session's calls in the order they
 * came), not dropped: Ctrl+Z right after a nudge undoes the nudge. While a chat turn runs (the model is editing) or a file uploads, they are
 * ignored.
 */
import { useEffect, useRef } from 'preact/hooks';
import { layerWithId, nextName, refOf, selectedRefs } from './layers.js';
import { openFiles, pastedFile } from './open-files.js';
import { PANE_TOOLS } from './pane-tools.js';
import type { Studio, ToolRun } from './use-studio.js';

/** Inputs whose text the browser edits (and undoes) itself; a slider, a switch or a colour well has no text. */
const TEXT_INPUTS = new Set(['', 'text', 'search', 'number', 'email', 'url', 'tel', 'password']);

/**
 * Whether a key pressed in `target` belongs to the field's own text editing (its own Ctrl+Z). An editable element
 * is one whatever its contenteditable value but "false": the type tool's styled box is "plaintext-only".
 */
export function editsText(target: Element | null): boolean {
  const field = target?.closest('input, textarea, [contenteditable]:not([contenteditable="false"])');
  if (!field) return false;
  if (field.tagName !== 'INPUT') return true;
  return TEXT_INPUTS.has((field.getAttribute('type') ?? '').toLowerCase());
}

/**
 * Whether a key goes to a form control (a field, a list, a checkbox, a colour well): the canvas's own keys — the
 * tools' letters, Delete, the arrows — are then the control's, never an edit of the document.
 */
export function inFormControl(target: Element | null): boolean {
  return target?.closest('input, select, textarea, [contenteditable]:not([contenteditable="false"])') != null;
}

/**
 * Photoshop's layer and selection keys (by the key's place): Ctrl/⌘+J, E and G on the selected layers, Ctrl/⌘+A
 * selects the whole canvas, Ctrl/⌘+D deselects and Ctrl/⌘+Shift+I inverts the selection; null for any other.
 */
function layerKeyCall(e: KeyboardEvent, studio: Studio, groupName: string): ToolRun | null {
  const doc = studio.state?.active;
  if (!doc) return null;
  // Ctrl/⌘+Shift+I: Select › Inverse, which Photoshop offers only when there is a selection.
  if (e.shiftKey)
    return e.code === 'KeyI' && doc.has_selection ? { name: PANE_TOOLS.inverse, arguments: {} } : null;
  if (e.code === 'KeyA') return { name: PANE_TOOLS.selectAll, arguments: {} };
  if (e.code === 'KeyD') return { name: PANE_TOOLS.deselect, arguments: {} };
  if (doc.selected_layer_ids.length === 0) return null;
  if (e.code === 'KeyJ') return { name: PANE_TOOLS.duplicateLayer, arguments: {} };
  if (e.code === 'KeyE') return { name: PANE_TOOLS.mergeLayers, arguments: {} };
  if (e.code !== 'KeyG') return null;
  return {
    name: PANE_TOOLS.groupLayers,
    arguments: { layer_names: selectedRefs(doc), group_name: nextName(doc.layers, groupName) },
  };
}

/** The arrange call a bracket key asks for on the current layer, or null (no such key, no layer to move). */
function arrangeCall(e: KeyboardEvent, studio: Studio): ToolRun | null {
  // By the key's place, not its character: Shift turns ] into } on many layouts.
  const up = e.code === 'BracketRight';
  if (!up && e.code !== 'BracketLeft') return null;
  const doc = studio.state?.active;
  const layer = doc ? layerWithId(doc.layers, doc.active_layer_id) : undefined;
  if (!layer || layer.background) return null;
  const name = refOf(layer);
  if (e.shiftKey) return { name: up ? PANE_TOOLS.bringToFront : PANE_TOOLS.sendToBack, arguments: { name } };
  return { name: PANE_TOOLS.arrange, arguments: { name, position: up ? 'forward' : 'backward' } };
}

export function useEditShortcuts(
  studio: Studio,
  openTool: (name: string | null) => void,
  /** The name template of a new group ('组 {n}'), in the studio's language as the layers pane's button names it. */
  groupName: string,
): void {
  // Read when a key is pressed, not when the listener was added: effects run after the frame is painted, so a key
  // pressed right after a change (two layers shown selected) would otherwise act on the state before it.
  const latest = useRef(studio);
  latest.current = studio;
  useEffect(() => {
    // Closed first, then opened a moment later: a form already open (its tab in the back, or proposing the file of
    // the document before) opens afresh and comes forward.
    const openAfresh = (name: string) => {
      openTool(null);
      setTimeout(() => openTool(name), 0);
    };
    const onKey = (e: KeyboardEvent) => {
      const studio = latest.current;
      const held = studio.chatting || studio.uploading;
      // Ctrl/⌘+Alt+Shift+W: File › Export › Export As (导出图像).
      if ((e.ctrlKey || e.metaKey) && e.altKey && e.shiftKey && e.code === 'KeyW') {
        e.preventDefault();
        if (!studio.state?.active || held) return;
        openAfresh(PANE_TOOLS.exportImage);
        return;
      }
      if (!(e.ctrlKey || e.metaKey) || e.altKey) return;
      // By the key's place, as the brackets: the same key on every layout.
      if (e.code === 'KeyS') {
        e.preventDefault();
        if (!studio.state?.active || held) return;
        if (e.shiftKey) {
          openAfresh(PANE_TOOLS.saveAs);
        } else void studio.run([{ name: PANE_TOOLS.save, arguments: {} }]);
        return;
      }
      // After the opacity slider, the blend mode or a switch, Ctrl+Z undoes that change as in any editor; in a
      // text field it is the field's own undo.
      if (editsText(e.target as Element | null)) return;
      const layerCall = arrangeCall(e, studio) ?? layerKeyCall(e, studio, groupName);
      if (layerCall) {
        if (held) return;
        e.preventDefault();
        void studio.run([layerCall]);
        return;
      }
      const key = e.key.toLowerCase();
      const redo = (key === 'z' && e.shiftKey) || key === 'y';
      if (key !== 'z' && !redo) return;
      if (!studio.state?.active || held) return;
      e.preventDefault();
      void studio.run([{ name: redo ? PANE_TOOLS.redo : PANE_TOOLS.undo, arguments: {} }]);
    };
    // Ctrl+V anywhere but a text field, as in Photoshop: an image on the clipboard goes on the canvas, a new layer
    // of the open document or a document of its own (the message box handles its own paste, with or without a
    // model; without one it cannot be reached).
    const onPaste = (e: ClipboardEvent) => {
      const studio = latest.current;
      const held = studio.chatting || studio.uploading;
      if (e.defaultPrevented || editsText(e.target as Element | null)) return;
      const images = Array.from(e.clipboardData?.files ?? []).filter((f) => f.type.startsWith('image/'));
      if (images.length === 0 || held) return;
      e.preventDefault();
      void openFiles(
        studio,
        images.map((f) => pastedFile(f)),
        studio.state?.active ? 'layer' : 'document',
      );
    };
    window.addEventListener('keydown', onKey);
    window.addEventListener('paste', onPaste);
    return () => {
      window.removeEventListener('keydown', onKey);
      window.removeEventListener('paste', onPaste);
    };
  }, [openTool, groupName]);
}
