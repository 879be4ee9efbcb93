/**
 * Photoshop's Horizontal Type tool on the canvas (T): a click on a text layer edits its words where they stand; a
 * click elsewhere starts a new text layer there, in the font, size and colour of the options bar. The words are
 * typed in a box over the canvas in the text's font (a bundled weight as the bundled font at that weight) at the
 * canvas's zoom; Enter starts a new line, Ctrl/⌘+Enter or a
 * click outside the box commits (create_text_layer, or set_text_content for a layer edited: one history step), Esc
 * cancels. Nothing is sent for an empty new text or an unchanged one.
 */
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { ActiveDocument, LayerNode } from '../api/types.js';
import { useStudioView } from '../context.js';
import { refOf } from '../state/layers.js';
import { PANE_TOOLS } from '../state/pane-tools.js';

/** The options bar's values for new text. */
export interface TextOptions {
  readonly size: number;
  readonly color: string;
  /** The font chosen in the options bar; null for the bundled one. */
  readonly font: string | null;
}

/** What is being typed: a new text at a point, or an existing text layer. */
export interface TextEdit {
  readonly doc: string;
  readonly x: number;
  readonly y: number;
  readonly size: number;
  readonly color: string;
  /** The font typed in: new text's (null: the bundled one), or the edited layer's own, which it keeps. */
  readonly font: string | null;
  readonly initial: string;
  /** The text layer edited; absent for a new one. */
  readonly layer?: LayerNode;
}

/** A starting size for new text: about a twelfth of the canvas's height, within reason. */
export function defaultTextSize(doc: ActiveDocument): number {
  return Math.min(400, Math.max(12, Math.round(doc.height / 12)));
}

/**
 * The topmost visible, unlocked text layer whose box holds `at` (top of the stack first, into visible groups), as
 * Photoshop's type tool picks the text to edit: by its box, not only where a glyph has ink.
 */
export function textLayerAt(
  layers: readonly LayerNode[],
  at: { x: number; y: number },
): LayerNode | undefined {
  for (const layer of layers) {
    if (!layer.visible) continue;
    if (layer.children) {
      const inner = textLayerAt(layer.children, at);
      if (inner) return inner;
      continue;
    }
    const b = layer.bounds;
    if (!layer.text || layer.locked || !b || b.empty === true) continue;
    const [x, y, w, h] = [b.left, b.top, b.width, b.height].map(Number) as [number, number, number, number];
    if (at.x >= x && at.x < x + w && at.y >= y && at.y < y + h) return layer;
  }
  return undefined;
}

/** The bundled font's weights by the word their family name ends in, as CSS weights. */
const BUNDLED_WEIGHTS: Record<string, number> = { Light: 300, DemiLight: 350, Medium: 500, Bold: 700 };

/**
 * How the box shows `font` while typing: the page has the bundled font's Regular, so a bundled weight is that font
 * at the weight (the browser's own, close enough to type in); another font by its name where the browser has it.
 */
function previewFont(font: string | null): { fontFamily?: string; fontWeight?: number } {
  if (!font) return {};
  const weight = /^Noto Sans SC (\w+)$/.exec(font)?.[1];
  if (weight && BUNDLED_WEIGHTS[weight]) return { fontWeight: BUNDLED_WEIGHTS[weight] };
  return { fontFamily: `"${font.replace(/["\\]/g, '')}", "Noto Sans SC", sans-serif` };
}

export function useTextTool(docName: string | null) {
  const { studio } = useStudioView();
  const [edit, setEdit] = useState<TextEdit | null>(null);
  // Another document shown (switched, closed, renamed by the model): the words being typed go with it.
  useEffect(() => {
    setEdit((e) => (e && e.doc !== docName ? null : e));
  }, [docName]);

  /** A click at document point (x, y) with the type tool: the text layer there edited, or a new text begun. */
  const clickAt = (doc: ActiveDocument, at: { x: number; y: number }, options: TextOptions) => {
    if (at.x < 0 || at.y < 0 || at.x >= doc.width || at.y >= doc.height) return;
    const layer = textLayerAt(doc.layers, at);
    const t = layer?.text;
    if (layer && t) {
      setEdit({
        doc: doc.name,
        x: t.x,
        y: t.y,
        size: t.size,
        color: t.color,
        font: t.font,
        initial: t.content,
        layer,
      });
      return;
    }
    const { size, color, font } = options;
    setEdit({ doc: doc.name, x: at.x, y: at.y, size, color, font, initial: '' });
  };

  const commit = (e: TextEdit, text: string) => {
    setEdit(null);
    const content = text.replace(/\s+$/, '');
    if (content === '' || content === e.initial) return;
    if (e.layer) {
      void studio.run([{ name: PANE_TOOLS.editText, arguments: { name: refOf(e.layer), text: content } }]);
      return;
    }
    void studio.run([
      {
        name: PANE_TOOLS.createText,
        arguments: {
          text: content,
          x: Math.round(e.x),
          y: Math.round(e.y),
          font_size: e.size,
          color: e.color,
          ...(e.font ? { font_name: e.font } : {}),
        },
      },
    ]);
  };

  return { edit, clickAt, commit, cancel: () => setEdit(null) };
}

/** The box the words are typed in, over the canvas where the text will stand. */
export function TextEditor({
  edit,
  zoom,
  onCommit,
  onCancel,
}: {
  edit: TextEdit;
  zoom: number;
  onCommit(text: string): void;
  onCancel(): void;
}) {
  const { t } = useStudioView();
  const box = useRef<HTMLTextAreaElement>(null);
  const [value, setValue] = useState(edit.initial);
  const done = useRef(false);
  // Focused as it appears (before the browser paints), so that the first key typed after the click lands in it.
  useLayoutEffect(() => {
    const el = box.current;
    if (!el) return;
    el.focus();
    el.select();
  }, []);
  const finish = (commit: boolean) => {
    if (done.current) return;
    done.current = true;
    if (commit) onCommit(box.current?.value ?? value);
    else onCancel();
  };
  const lines = value.split('\n');
  const longest = Math.max(1, ...lines.map((l) => [...l].length));
  return (
    <textarea
      ref={box}
      class="text-editor"
      aria-label={t(edit.layer ? 'canvas.textEdit' : 'canvas.textNew')}
      value={value}
      spellcheck={false}
      rows={lines.length}
      style={{
        left: `${edit.x * zoom}px`,
        top: `${edit.y * zoom}px`,
        fontSize: `${edit.size * zoom}px`,
        ...previewFont(edit.font),
        color: edit.color,
        // Wide enough for the longest line in full-width characters, so the box never wraps what it shows.
        width: `${(longest + 1) * edit.size * zoom}px`,
      }}
      onInput={(e) => setValue((e.currentTarget as HTMLTextAreaElement).value)}
      onPointerDown={(e) => e.stopPropagation()}
      // A double-click selects a word here; it does not fit the canvas's view.
      onDblClick={(e) => e.stopPropagation()}
      onKeyDown={(e) => {
        // The canvas's keys (arrows, Delete, the tools' letters) are not for the words being typed.
        e.stopPropagation();
        // Keys that end an input method's composition (Chinese pinyin) are the method's, not ours.
        if (e.isComposing) return;
        if (e.key === 'Escape') {
          e.preventDefault();
          finish(false);
        } else if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
          e.preventDefault();
          finish(true);
        }
      }}
      onBlur={() => finish(true)}
    />
  );
}
