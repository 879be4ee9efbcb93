/**
 * Photoshop's Horizontal Type tool on the canvas (T): a click on a text layer edits its words where they stand; a
 * click elsewhere starts a new text layer there (point text), and a drag draws a box for paragraph text, whose
 * lines wrap in it — in the font, size, colour and alignment of the options bar. Point text set centred or right
 * stands about the point clicked, as Photoshop's (create_text_layer, then 文字对齐 about that anchor). The words are
 * typed in a box over the canvas in the text's font (a bundled weight as the bundled font at that weight) at the
 * canvas's zoom; Enter starts a new line, Ctrl/⌘+Enter or a
 * click outside the box commits (create_text_layer or create_paragraph_text, or set_text_content for a layer
 * edited: one history step; point text aligned other than left takes a second, its alignment), Esc
 * cancels. Nothing is sent for an empty new text or an unchanged one. As in Photoshop, the options bar belongs to
 * the words being typed: going to it (its font, size or colour) keeps them open, a change there restyles them,
 * and its Enter brings the keys back to them; leaving for anywhere else commits them. With some characters of a
 * text layer selected in the box, a change there sets those characters only (修改部分文字样式, after the words
 * typed so far: one history step), and the box closes on the layer as the server draws it. A layer whose words are
 * already in several styles is typed in a box that shows each stretch in its style (styled-words.ts); vertical
 * words are typed in columns (in several styles too).
 */
import type { Ref } from 'preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { TEXT_BASELINE_EM } from '../../registry/tools/text-params.js';
import type { ActiveDocument, LayerNode } from '../api/types.js';
import { useStudioView } from '../context.js';
import { refOf } from '../state/layers.js';
import { PANE_TOOLS } from '../state/pane-tools.js';
import { gestureId } from '../state/use-studio.js';
import {
  fillStyled,
  previewFont,
  selectAll,
  selectionIn,
  styleSpan,
  type TextField,
  type WordStyle,
  wordsOf,
} from './styled-words.js';

/** The alignments the options bar offers (Photoshop's three buttons). */
export type TextAlign = 'left' | 'center' | 'right';

/** The options bar's values for new text. */
export interface TextOptions {
  readonly size: number;
  readonly color: string;
  /** The font chosen in the options bar; null for the bundled one. */
  readonly font: string | null;
  readonly align: TextAlign;
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
  /** How the edited text's lines are aligned about `x` (point text) or in its box (TextNode). */
  readonly align?: 'center' | 'right';
  /** The edited paragraph text's box, document px: what is typed wraps in it as the server sets it. */
  readonly box?: { readonly width: number; readonly height: number };
  /** The edited text's indents, document px: what is typed is set in from the edges as the server sets it. */
  readonly indent?: { readonly left: number; readonly first: number; readonly right: number };
  /** The edited text's fixed leading, document px between baselines (absent: auto, 120 %). */
  readonly leading?: number;
  /** The edited text's tracking, thousandths of an em: it follows a size changed in the bar. */
  readonly tracking?: number;
  /** The edited text is set in columns (直排): typed so, `x` its first column's centre line, `y` its top. */
  readonly vertical?: true;
  /** The edited text's characters in several styles (TextNode's): typed in a box that shows them (styled-words.ts). */
  readonly styles?: NonNullable<LayerNode['text']>['styles'];
  /** The character settings all its characters share (TextNode's): its case shown as it is typed. */
  readonly character?: NonNullable<LayerNode['text']>['character'];
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

/** The look of text: its font (null: the bundled one), size and colour. */
export type TextStyle = Pick<TextEdit, 'font' | 'size' | 'color'>;

/** What the options bar changes in the words being typed: their look, and new text's alignment. */
export type TextRestyle = Partial<TextStyle> & { readonly align?: TextAlign };

/** An alignment as TextEdit keeps it: left is the absence of one. */
function alignOf(align: TextAlign): Pick<TextEdit, 'align'> {
  return align === 'left' ? {} : { align };
}

/**
 * New text just committed, until the studio has its layer (the bar shows it meanwhile, as Photoshop's shows the
 * text just made, and a change there waits for the layer, rather than going to the layer selected before).
 */
export interface MadeText extends TextStyle {
  readonly doc: string;
  /** The created layer's reference once its call has answered; null when it failed. */
  readonly layer: Promise<string | null>;
}

/** The class of the type tool's options bar: focus moved into it keeps the words being typed open. */
export const TYPE_OPTIONS = 'type-options';

/** Whether `target` is in the type tool's options bar. */
export function inTypeOptions(target: EventTarget | null): boolean {
  return target instanceof Element && target.closest(`.${TYPE_OPTIONS}`) !== null;
}

/** The same words being typed (restyled or not): the same place and layer in the same document. */
function sameEdit(a: TextEdit, b: TextEdit): boolean {
  return a.doc === b.doc && a.x === b.x && a.y === b.y && a.layer?.id === b.layer?.id;
}

let probe: CanvasRenderingContext2D | null = null;

/**
 * A "d" in `edit`'s font as the page measures it, at 100 px (metrics scale with the size, and a tiny size would round
 * them away), with `k` to scale its metrics to the text's size; whether it is the bundled font. Null without a size.
 */
function measureD(edit: Pick<TextEdit, 'font' | 'size'>) {
  probe ??= document.createElement('canvas').getContext('2d');
  const { size } = edit;
  if (!probe || !(size > 0)) return null;
  const { fontFamily, fontWeight, fontStyle } = previewFont(edit.font);
  probe.font = `${fontStyle ?? ''} ${fontWeight ?? 400} 100px ${fontFamily ?? '"Noto Sans SC", sans-serif'}`;
  return { m: probe.measureText('d'), k: size / 100, size, bundled: fontFamily === undefined };
}

/**
 * How far the typing box must stand above `y` (document px) for its first line's baseline to fall where the server
 * sets it. CSS puts a line's baseline half the spare line height below its top plus the font's ascent; the server
 * puts point text's first baseline TEXT_BASELINE_EM below `y` and paragraph text's the height of a "d" below its
 * box's top (Adobe's Ascent baseline), whatever the line height.
 */
export function baselineLift(edit: Pick<TextEdit, 'font' | 'size' | 'leading' | 'box'>): number {
  const measured = measureD(edit);
  if (!measured) return 0;
  const { m, k, size } = measured;
  const ascent = m.fontBoundingBoxAscent * k;
  const descent = m.fontBoundingBoxDescent * k;
  const lineHeight = edit.leading ?? 1.2 * size;
  const css = (lineHeight - ascent - descent) / 2 + ascent;
  const server =
    edit.box && m.actualBoundingBoxAscent > 0 ? m.actualBoundingBoxAscent * k : TEXT_BASELINE_EM * size;
  return css - server;
}

/**
 * How far right of where CSS sets it (vertical-rl, the first column's line box at the box's right edge) paragraph
 * text's first column stands on the server: there, horizontal text's first line turned, its turned baseline a "d"
 * height inside the box's right edge and its em box centred on the column above that baseline (the bundled font's
 * ideographic em box, another font's ascent and descent: text-vertical.ts).
 */
export function columnLift(edit: Pick<TextEdit, 'font' | 'size' | 'leading'>): number {
  const measured = measureD(edit);
  if (!measured) return 0;
  const { m, k, size, bundled } = measured;
  const emTop = !bundled
    ? 0.5 + (m.fontBoundingBoxAscent - m.fontBoundingBoxDescent) / 200
    : TEXT_BASELINE_EM;
  const ascent = m.actualBoundingBoxAscent > 0 ? m.actualBoundingBoxAscent * k : TEXT_BASELINE_EM * size;
  const server = ascent - (emTop - 0.5) * size;
  const css = (edit.leading ?? 1.2 * size) / 2;
  return css - server;
}

export function useTextTool(docName: string | null) {
  const { studio } = useStudioView();
  const [edit, setEdit] = useState<TextEdit | null>(null);
  const [made, setMade] = useState<MadeText | null>(null);
  // As they are now, not as the last render saw them: the options bar's change made as the words are committed
  // (its field left by the click that commits them) is in what is sent.
  const editNow = useRef<TextEdit | null>(null);
  const madeNow = useRef<MadeText | null>(null);
  // The box the words are typed in, while it is open: where the characters selected in it are read.
  const field = useRef<TextField | null>(null);
  // Words whose characters were styled (and their words made) with the box still on the page: its commit, when the
  // focus leaves it, is not another edit.
  const styled = useRef<TextEdit | null>(null);
  const putEdit = (next: TextEdit | null) => {
    editNow.current = next;
    setEdit(next);
  };
  const putMade = (next: MadeText | null) => {
    madeNow.current = next;
    setMade(next);
  };
  // Another document shown (switched, closed, renamed by the model): the words being typed go with it.
  useEffect(() => {
    if (editNow.current && editNow.current.doc !== docName) putEdit(null);
  }, [docName]);

  /** A click at document point (x, y) with the type tool: the text layer there edited, or a new text begun. */
  const clickAt = (doc: ActiveDocument, at: { x: number; y: number }, options: TextOptions) => {
    if (at.x < 0 || at.y < 0 || at.x >= doc.width || at.y >= doc.height) return;
    const layer = textLayerAt(doc.layers, at);
    const t = layer?.text;
    if (layer && t) {
      putEdit({
        doc: doc.name,
        x: t.x,
        y: t.y,
        size: t.size,
        color: t.color,
        font: t.font,
        initial: t.content,
        layer,
        ...(t.align ? { align: t.align } : {}),
        ...(t.box ? { box: t.box } : {}),
        ...(t.indent ? { indent: t.indent } : {}),
        ...(t.leading !== undefined ? { leading: t.leading } : {}),
        ...(t.tracking !== undefined ? { tracking: t.tracking } : {}),
        ...(t.vertical ? { vertical: true as const } : {}),
        ...(t.styles ? { styles: t.styles } : {}),
        ...(t.character ? { character: t.character } : {}),
      });
      return;
    }
    putEdit({ ...newText(doc, options), x: at.x, y: at.y });
  };

  /** A box dragged with the type tool (document px): paragraph text begun in it. */
  const boxAt = (
    doc: ActiveDocument,
    box: { x: number; y: number; w: number; h: number },
    options: TextOptions,
  ) => {
    putEdit({ ...newText(doc, options), x: box.x, y: box.y, box: { width: box.w, height: box.h } });
  };

  /** New words' style: the text just made (its layer not in the studio yet) is what the bar shows, else the bar. */
  const newText = (doc: ActiveDocument, options: TextOptions): Omit<TextEdit, 'x' | 'y'> => {
    const just = madeNow.current?.doc === doc.name ? madeNow.current : null;
    const { size, font } = just ?? options;
    return { doc: doc.name, size, color: options.color, font, initial: '', ...alignOf(options.align) };
  };

  /** The words being typed (`of`, when still those) set in `style`, as the options bar changed it. */
  const restyle = (style: TextRestyle, of: TextEdit) => {
    const now = editNow.current;
    if (!now || !sameEdit(now, of)) return;
    const { align, ...look } = style;
    if (align === undefined) putEdit({ ...now, ...look });
    else {
      const { align: _was, ...rest } = now;
      putEdit({ ...rest, ...look, ...alignOf(align) });
    }
  };

  /** The text just made shown in `style` until its layer comes (a change the bar sends to that layer). */
  const restyleMade = (style: Partial<TextStyle>, of: MadeText) => {
    const now = madeNow.current;
    if (now && now.layer === of.layer) putMade({ ...now, ...style });
  };

  /** The words typed in `e` made or changed, in `resized`, the box its handle gave paragraph text (document px). */
  const commit = (e: TextEdit, text: string, resized?: BoxSize) => {
    if (styled.current && sameEdit(styled.current, e)) {
      styled.current = null;
      return;
    }
    const edited = editNow.current && sameEdit(editNow.current, e) ? editNow.current : e;
    const now = resized && edited.box ? { ...edited, box: resized } : edited;
    putEdit(null);
    const content = text.replace(/\s+$/, '');
    const reboxed =
      now.box !== undefined &&
      edited.box !== undefined &&
      (Math.round(now.box.width) !== Math.round(edited.box.width) ||
        Math.round(now.box.height) !== Math.round(edited.box.height));
    if (now.layer) {
      // The box first (its call keeps the layer's name), then the words: one history step each, as Photoshop's.
      const name = refOf(now.layer);
      const calls = [
        ...(reboxed && now.box
          ? [
              {
                name: PANE_TOOLS.textBox,
                arguments: { name, width: Math.round(now.box.width), height: Math.round(now.box.height) },
              },
            ]
          : []),
        ...(content !== '' && content !== now.initial
          ? [{ name: PANE_TOOLS.editText, arguments: { name, text: content } }]
          : []),
      ];
      if (calls.length > 0) void studio.run(calls);
      return;
    }
    if (content === '') return;
    let ref: string | null = null;
    let done: (ref: string | null) => void = () => {};
    const layer = new Promise<string | null>((resolve) => {
      done = resolve;
    });
    const just: MadeText = { doc: now.doc, font: now.font, size: now.size, color: now.color, layer };
    putMade(just);
    const style = {
      font_size: now.size,
      color: now.color,
      ...(now.font ? { font_name: now.font } : {}),
    };
    const at = { x: Math.round(now.x), y: Math.round(now.y) };
    const made = now.box
      ? {
          name: PANE_TOOLS.createParagraph,
          arguments: {
            text: content,
            ...at,
            width: Math.round(now.box.width),
            height: Math.round(now.box.height),
            ...style,
            ...(now.align ? { alignment: now.align } : {}),
          },
        }
      : { name: PANE_TOOLS.createText, arguments: { text: content, ...at, ...style } };
    const align = now.box ? undefined : now.align;
    // Point text centred or set right stands about the point clicked: made left-aligned from it, then aligned
    // about that anchor, as Photoshop sets it, the two one history step (one gesture over two runs: the second
    // needs the layer the first made).
    const gesture = align ? { oneStep: gestureId() } : {};
    void studio
      .run(
        [
          {
            ...made,
            onResult: (r) => {
              const made = r.layer as { name?: unknown; ref?: unknown } | undefined;
              const name = made?.ref ?? made?.name;
              ref = typeof name === 'string' ? name : null;
            },
          },
        ],
        gesture,
      )
      .catch(() => false)
      .then((ok) =>
        ok && align && ref
          ? studio
              .run([{ name: PANE_TOOLS.textAlign, arguments: { name: ref, alignment: align } }], gesture)
              .catch(() => false)
              .then(() => ok)
          : ok,
      )
      .then((ok) => {
        // The studio's state has the layer now (selected: the bar shows it).
        if (madeNow.current?.layer === layer) putMade(null);
        done(ok ? ref : null);
      });
  };

  /**
   * The characters selected in the box of `e`, a text layer's words being edited, set so by `args` (style_text_range's
   * font_size, color or font_name), after the words typed so far, as one history step; the box then closes. False
   * (nothing done) when no characters of it are selected.
   */
  const styleSelection = (e: TextEdit, args: Record<string, unknown>): boolean => {
    const el = field.current;
    const now = editNow.current;
    if (!el || !e.layer || !now || !sameEdit(now, e)) return false;
    const { selectionStart: start, selectionEnd: end, value } = el;
    const content = value.replace(/\s+$/, '');
    if (!(end > start) || end > content.length) return false;
    const text = content.slice(start, end);
    const occurrence = occurrenceAt(content, text, start);
    if (occurrence === 0) return false;
    styled.current = e;
    putEdit(null);
    let name = refOf(e.layer);
    const style = () => ({ name: PANE_TOOLS.textRange, arguments: { name, text, occurrence, ...args } });
    if (content === e.initial) {
      void studio.run([style()]);
      return true;
    }
    // The words first (renaming a layer named after them), then the characters in the layer by its new name.
    const gesture = { oneStep: gestureId() };
    void studio
      .run(
        [
          {
            name: PANE_TOOLS.editText,
            arguments: { name, text: content },
            onResult: (r) => {
              const layer = r.layer as { name?: unknown; ref?: unknown } | undefined;
              const ref = layer?.ref ?? layer?.name;
              if (typeof ref === 'string') name = ref;
            },
          },
        ],
        gesture,
      )
      .catch(() => false)
      .then((ok) => (ok ? studio.run([style()], gesture) : false));
    return true;
  };

  return {
    edit,
    made,
    field,
    clickAt,
    boxAt,
    commit,
    restyle,
    restyleMade,
    styleSelection,
    cancel: () => putEdit(null),
  };
}

/**
 * Which occurrence of `text` in `content` starts at `start` (1 the first), as style_text_range counts them (each
 * after the one before); 0 when none does.
 */
export function occurrenceAt(content: string, text: string, start: number): number {
  let k = 0;
  for (let i = content.indexOf(text); i >= 0 && i <= start; i = content.indexOf(text, i + text.length)) {
    k++;
    if (i === start) return k;
  }
  return 0;
}

/** The type tool's state, as the canvas and the options bar share it. */
export type TextTyping = ReturnType<typeof useTextTool>;

/** The largest size among the characters of `content`'s first line in `styles`; undefined without styles. */
function firstLineSize(content: string, styles: readonly WordStyle[] | undefined): number | undefined {
  if (!styles) return undefined;
  const end = content.search(/\r|\n/);
  const stop = end < 0 ? content.length : end;
  let at = 0;
  let largest = 0;
  for (const st of styles) {
    if (at >= stop && largest > 0) break;
    largest = Math.max(largest, st.size);
    at += st.length;
  }
  return largest;
}

/** A paragraph text box's size, document px. */
export interface BoxSize {
  readonly width: number;
  readonly height: number;
}

/** The smallest box the handle leaves, document px: a line of a character. */
const MIN_BOX = 4;

/** The class of paragraph text's resize handle: a press on it keeps the words being typed open. */
const BOX_HANDLE = 'text-box-handle';

/**
 * The box the words are typed in, over the canvas where the text will stand. Paragraph text's box has Photoshop's
 * corner handle: dragged, the box grows or shrinks from its top-left and the words wrap again as they go; the size
 * is made with the words (修改文本框, or the new text's box).
 */
export function TextEditor({
  edit,
  zoom,
  field,
  onCommit,
  onCancel,
}: {
  edit: TextEdit;
  zoom: number;
  /** Set to the box while it is open (TextTyping's, where the options bar reads the characters selected). */
  field?: { current: TextField | null };
  onCommit(text: string, box?: BoxSize): void;
  onCancel(): void;
}) {
  const { t } = useStudioView();
  const box = useRef<HTMLElement>(null);
  // Words in several styles are typed in a box that shows them (styled-words.ts), vertical ones in its columns.
  const styles = edit.styles;
  // The characters last selected in that box (the options bar takes the focus, and the page its selection).
  const picked = useRef<[number, number]>([0, 0]);
  /** The words as they are now. */
  const wordsNow = (): string | undefined => {
    const el = box.current;
    if (!el) return undefined;
    return el instanceof HTMLTextAreaElement ? el.value : wordsOf(el);
  };
  useLayoutEffect(() => {
    if (!field) return;
    const el = box.current;
    const adapter: TextField | null =
      el instanceof HTMLTextAreaElement
        ? el
        : el && {
            get value() {
              return wordsOf(el);
            },
            get selectionStart() {
              return picked.current[0];
            },
            get selectionEnd() {
              return picked.current[1];
            },
          };
    field.current = adapter;
    return () => {
      if (field.current === adapter) field.current = null;
    };
  }, [field]);
  // The styled box's selection, kept as it changes.
  useEffect(() => {
    if (!styles) return;
    const onChange = () => {
      const el = box.current;
      const at = el && selectionIn(el);
      if (at) picked.current = at;
    };
    document.addEventListener('selectionchange', onChange);
    return () => document.removeEventListener('selectionchange', onChange);
  }, []);
  // Its stretches drawn at the canvas's zoom, and set as the options bar sets the whole text (its size, colour or
  // font changed for every character while the words are typed).
  const shownAs = useRef({ zoom, size: edit.size, color: edit.color, font: edit.font });
  useEffect(() => {
    const el = box.current;
    const was = shownAs.current;
    shownAs.current = { zoom, size: edit.size, color: edit.color, font: edit.font };
    if (!styles || !el || el instanceof HTMLTextAreaElement) return;
    for (const span of el.querySelectorAll<HTMLElement>('span[data-style]')) {
      const own = JSON.parse(span.dataset.style!) as WordStyle;
      const now = {
        ...own,
        ...(edit.size !== was.size ? { size: edit.size } : {}),
        ...(edit.color !== was.color ? { color: edit.color } : {}),
        ...(edit.font !== was.font ? { font: edit.font ?? own.font } : {}),
      };
      span.dataset.style = JSON.stringify(now);
      styleSpan(span, now, zoom, edit.vertical === true);
    }
  }, [zoom, edit.size, edit.color, edit.font]);
  const [value, setValue] = useState(edit.initial);
  const [size, setSize] = useState<BoxSize | undefined>(edit.box);
  const sizeNow = useRef(size);
  sizeNow.current = size;
  const resizing = useRef<{ id: number; x: number; y: number; from: BoxSize } | null>(null);
  const done = useRef(false);
  // A press in the options bar, whose control takes the focus (the words stay open for it).
  const pressingBar = useRef(false);
  // Focused as it appears (before the browser paints), so that the first key typed after the click lands in it.
  useLayoutEffect(() => {
    const el = box.current;
    if (!el) return;
    if (el instanceof HTMLTextAreaElement) {
      el.focus();
      el.select();
      return;
    }
    if (styles) fillStyled(el, edit.initial, styles, zoom, edit.vertical === true);
    el.focus();
    selectAll(el);
  }, []);
  const finish = (commit: boolean) => {
    if (done.current) return;
    done.current = true;
    if (commit) onCommit(wordsNow() ?? value, sizeNow.current);
    else onCancel();
  };
  const finishNow = useRef(finish);
  finishNow.current = finish;
  // While the options bar has the focus, the words stay open; a press or the focus anywhere else commits them, as a
  // click outside the box does (the bar's field left first, so that a size typed there is in what is made).
  useEffect(() => {
    const away = (target: EventTarget | null) =>
      target !== box.current &&
      !inTypeOptions(target) &&
      !(target instanceof Element && target.closest(`.${BOX_HANDLE}`)) &&
      document.activeElement !== box.current;
    const leaveBar = () => {
      const focused = document.activeElement;
      if (focused instanceof HTMLElement && inTypeOptions(focused)) focused.blur();
    };
    const onPress = (e: PointerEvent) => {
      pressingBar.current = inTypeOptions(e.target);
      if (!away(e.target)) return;
      leaveBar();
      finishNow.current(true);
    };
    const onRelease = () => {
      pressingBar.current = false;
    };
    const onFocus = (e: FocusEvent) => {
      if (away(e.target)) finishNow.current(true);
    };
    document.addEventListener('pointerdown', onPress, true);
    document.addEventListener('pointerup', onRelease, true);
    document.addEventListener('pointercancel', onRelease, true);
    document.addEventListener('focusin', onFocus, true);
    return () => {
      document.removeEventListener('pointerdown', onPress, true);
      document.removeEventListener('pointerup', onRelease, true);
      document.removeEventListener('pointercancel', onRelease, true);
      document.removeEventListener('focusin', onFocus, true);
    };
  }, []);
  const lines = value.split('\n');
  const longest = Math.max(1, ...lines.map((l) => [...l].length));
  const spacing = ((edit.tracking ?? 0) / 1000) * edit.size;
  // CSS centres a line's glyphs in its line height, the server sets the first baseline from the top. In several
  // styles the first line is as tall as its largest characters in CSS, and so is paragraph text's first baseline on
  // the server; point text's stays at its anchor, TEXT_BASELINE_EM of its first character's size below y.
  const firstLine = firstLineSize(edit.initial, styles) ?? edit.size;
  const lift =
    baselineLift({ ...edit, size: firstLine }) + (size ? 0 : TEXT_BASELINE_EM * (firstLine - edit.size));
  // Wide enough for the longest line in full-width characters, so the box never wraps what it shows; paragraph
  // text's own box width, wrapping as the server does. Point text centred or ending at x stands about it. The
  // indents pad the box (a paragraph's inside its width).
  const pad = { left: (edit.indent?.left ?? 0) * zoom, right: (edit.indent?.right ?? 0) * zoom };
  // Room for the largest characters of words in several styles.
  const em = Math.max(edit.size, ...(styles ?? []).map((st) => st.size));
  const width = size
    ? Math.max(0, size.width * zoom - pad.left - pad.right)
    : ((longest + 1) * (em + Math.max(0, spacing)) + Math.max(0, edit.indent?.first ?? 0)) * zoom;
  const outer = width + pad.left + pad.right;
  // Words in several styles size their own box (CSS: as wide as their longest line), centred or ended on x by CSS.
  const fits = styles !== undefined && !size && !edit.vertical;
  const shift = size || fits ? 0 : edit.align === 'center' ? outer / 2 : edit.align === 'right' ? outer : 0;
  const left = edit.x * zoom - shift;
  const top = (edit.y - lift) * zoom;
  // Vertical text typed in columns (CSS vertical-rl, which stands Chinese upright and turns Latin as the server
  // does): point text's first column centred on x from y down (centred on y, or ending at it, when so aligned);
  // paragraph text in its box, the first column where the server stands it (columnLift).
  const pitch = edit.leading ?? 1.2 * edit.size;
  const columnLength = (longest + 1) * (edit.size + Math.max(0, spacing));
  const vertical = edit.vertical
    ? size
      ? {
          left: (edit.x + columnLift({ ...edit, size: firstLine })) * zoom,
          top: edit.y * zoom,
          width: size.width * zoom,
          height: size.height * zoom,
        }
      : {
          left: (edit.x + pitch / 2 - lines.length * pitch) * zoom,
          top:
            (edit.y -
              (edit.align === 'center' ? columnLength / 2 : edit.align === 'right' ? columnLength : 0)) *
            zoom,
          width: lines.length * pitch * zoom,
          height: columnLength * zoom,
        }
    : null;
  const shared = {
    class: size ? 'text-editor in-box' : 'text-editor',
    'aria-label': t(edit.layer ? 'canvas.textEdit' : 'canvas.textNew'),
    spellcheck: false,
    style: {
      left: `${left}px`,
      top: `${top}px`,
      fontSize: `${edit.size * zoom}px`,
      ...previewFont(edit.font),
      color: edit.color,
      width: `${width}px`,
      ...(edit.align ? { textAlign: edit.align } : {}),
      // The text's own spacing, so what is typed sets as the server will set it.
      ...(edit.indent
        ? {
            paddingLeft: `${pad.left}px`,
            paddingRight: `${pad.right}px`,
            // Every paragraph's first line, as the server sets them. Chromium honours `each-line` in a block but
            // not inside a textarea, where only the first paragraph shows its indent while the words are typed.
            textIndent: `${edit.indent.first * zoom}px each-line`,
          }
        : {}),
      ...(edit.leading !== undefined ? { lineHeight: `${edit.leading * zoom}px` } : {}),
      ...(spacing !== 0 ? { letterSpacing: `${spacing * zoom}px` } : {}),
      // Its case as drawn (a textarea's value keeps the words as typed; a styled box's spans show their own).
      ...(edit.character?.caps === 'small_caps' ? { fontVariantCaps: 'small-caps' } : {}),
      ...(edit.character?.caps === 'all_caps' && !styles ? { textTransform: 'uppercase' } : {}),
      // Paragraph text: the box's frame is drawn on the box itself (below); the words, lifted to their first
      // baseline, run to the box's bottom.
      ...(size
        ? {
            whiteSpace: 'pre-wrap',
            height: `${(size.height + lift) * zoom}px`,
            borderColor: 'transparent',
            background: 'none',
          }
        : {}),
      // Columns: the box placed and sized for them (over what horizontal typing sets above).
      ...(vertical
        ? {
            writingMode: 'vertical-rl',
            left: `${vertical.left}px`,
            top: `${vertical.top}px`,
            width: `${vertical.width}px`,
            height: `${vertical.height}px`,
            lineHeight: `${pitch * zoom}px`,
            paddingLeft: '0',
            paddingRight: '0',
            // The empty box's least size, along the column rather than across it.
            minWidth: '0',
            minHeight: '2em',
          }
        : {}),
    },
    onPointerDown: (e: PointerEvent) => e.stopPropagation(),
    // A double-click selects a word here; it does not fit the canvas's view.
    onDblClick: (e: MouseEvent) => e.stopPropagation(),
    onKeyDown: (e: KeyboardEvent) => {
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
    },
    onBlur: (e: FocusEvent) => {
      // To the options bar: its font, size and colour are these words', changed while they stay open.
      if (pressingBar.current || inTypeOptions(e.relatedTarget)) return;
      finish(true);
    },
  };
  const textarea = styles ? (
    // biome-ignore lint/a11y/useSemanticElements: a textarea cannot show each stretch in its own size and colour.
    <div
      {...shared}
      style={{
        ...shared.style,
        // Spaces typed are kept as typed (a box's default white-space would let the editor drop a space typed
        // before a word); paragraph text wraps (pre-wrap, above).
        ...(size ? {} : { whiteSpace: 'pre' }),
        ...(fits
          ? {
              width: 'max-content',
              transform:
                edit.align === 'center'
                  ? 'translateX(-50%)'
                  : edit.align === 'right'
                    ? 'translateX(-100%)'
                    : '',
            }
          : {}),
      }}
      tabIndex={0}
      ref={box as Ref<HTMLDivElement>}
      class={`${shared.class} styled`}
      contentEditable="plaintext-only"
      role="textbox"
      aria-multiline="true"
      onInput={(e) => setValue(wordsOf(e.currentTarget))}
    />
  ) : (
    <textarea
      {...shared}
      ref={box as Ref<HTMLTextAreaElement>}
      value={value}
      rows={lines.length}
      onInput={(e) => setValue(e.currentTarget.value)}
    />
  );
  if (!size) return textarea;
  // The box as the server sets words in it (its top the text's `y`, not lifted), framed, its handle on the corner.
  const frame = { x: left, y: edit.y * zoom, w: outer + 2, h: size.height * zoom + 2 };
  return (
    <>
      <span
        class="text-box-frame"
        aria-hidden="true"
        style={{ left: `${frame.x}px`, top: `${frame.y}px`, width: `${frame.w}px`, height: `${frame.h}px` }}
      />
      {textarea}
      <span
        class={BOX_HANDLE}
        // A pointer's handle (the 修改文本框 form sets the size by keys): its size for a test or a tooltip.
        aria-hidden="true"
        title={t('canvas.textBoxHandle')}
        data-size={`${Math.round(size.width)} × ${Math.round(size.height)}`}
        style={{ left: `${frame.x + frame.w}px`, top: `${frame.y + frame.h}px` }}
        // The words keep the focus (and stay open) while the box is resized.
        onMouseDown={(e) => e.preventDefault()}
        onPointerDown={(e) => {
          e.stopPropagation();
          e.preventDefault();
          e.currentTarget.setPointerCapture(e.pointerId);
          resizing.current = { id: e.pointerId, x: e.clientX, y: e.clientY, from: size };
        }}
        onPointerMove={(e) => {
          const r = resizing.current;
          if (!r || r.id !== e.pointerId) return;
          setSize({
            width: Math.max(MIN_BOX, Math.round(r.from.width + (e.clientX - r.x) / zoom)),
            height: Math.max(MIN_BOX, Math.round(r.from.height + (e.clientY - r.y) / zoom)),
          });
        }}
        onPointerUp={(e) => {
          if (resizing.current?.id !== e.pointerId) return;
          resizing.current = null;
          box.current?.focus();
        }}
        onPointerCancel={() => {
          const r = resizing.current;
          resizing.current = null;
          if (r) setSize(r.from);
        }}
      />
    </>
  );
}
