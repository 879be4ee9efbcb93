/**
 * Photoshop's options bar for the type tool: font, size and colour, always those of the text the designer is
 * working on. While new text is typed they are that text's: a change there restyles the words being typed (the
 * box shows it) and is what is made; going to the bar keeps the words open. With one text layer selected, or being
 * typed in, they are that layer's, and a change is made to the layer at once (修改字体, 修改字号, 修改文字颜色); the
 * text just made, until the studio has its layer, is changed once it has it (never the layer selected before). The
 * font and size chosen are then what new text is set in too, as in Photoshop, where new text takes the options
 * bar's settings. With no text layer selected it holds what new text is set in: the chosen font and size, and the
 * document's foreground colour. As Photoshop's bar, Enter in a field (or a font or colour chosen) gives the keys
 * back to the document — to the words being typed, else the canvas, where V and Ctrl+Z act — and a press outside
 * the bar takes the focus from its field. With some characters of a layer's words selected in the type tool's box,
 * a change sets those characters only (修改部分文字样式; TextTool.tsx). Its 直排 button is Photoshop's Toggle Text
 * Orientation for the selected text layer (文字方向).
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { POINT_JUSTIFICATIONS } from '../../registry/tools/text-params.js';
import type { ActiveDocument, LayerNode } from '../api/types.js';
import { useStudioView } from '../context.js';
import type { MessageKey } from '../i18n.js';
import { layerWithId, refOf } from '../state/layers.js';
import { PANE_TOOLS } from '../state/pane-tools.js';
import { backToDocument } from './back-to-document.js';
import { TextSpacingPanel } from './TextSpacingPanel.js';
import {
  defaultTextSize,
  type MadeText,
  type TextAlign,
  type TextEdit,
  type TextOptions,
  type TextStyle,
  type TextTyping,
  TYPE_OPTIONS,
} from './TextTool.js';
import type { Fonts } from './useFonts.js';
import type { useForeground } from './useForeground.js';

type TextLayerNode = LayerNode & { text: NonNullable<LayerNode['text']> };

/**
 * The text layer the bar shows and changes: the one being typed in, none while new text is typed, else the one
 * selected layer when it is a text layer that can be changed.
 */
function targetLayer(doc: ActiveDocument, typing: TextEdit | null): TextLayerNode | undefined {
  const selected = doc.selected_layer_ids.length === 1 ? doc.selected_layer_ids[0] : undefined;
  const id = typing ? typing.layer?.id : selected;
  const layer = id === undefined ? undefined : layerWithId(doc.layers, id);
  return layer?.text && !layer.locked ? (layer as TextLayerNode) : undefined;
}

/** What the bar shows and changes. */
type Target =
  /** A text layer: the one whose words are typed, else the one selected. */
  | { readonly kind: 'layer'; readonly layer: TextLayerNode; readonly edited: TextEdit | null }
  /** New text being typed. */
  | { readonly kind: 'typing'; readonly edit: TextEdit }
  /** New text just committed, its layer not in the studio yet. */
  | { readonly kind: 'made'; readonly made: MadeText }
  /** Nothing: what new text will be set in. */
  | { readonly kind: 'none' };

function targetOf(doc: ActiveDocument, typing: TextTyping): Target {
  const edit = typing.edit?.doc === doc.name ? typing.edit : null;
  if (edit && !edit.layer) return { kind: 'typing', edit };
  if (!edit && typing.made?.doc === doc.name) return { kind: 'made', made: typing.made };
  const layer = targetLayer(doc, edit);
  return layer ? { kind: 'layer', layer, edited: edit } : { kind: 'none' };
}

/** Which target it is, for the size typed in the field, which another one's does not keep. */
function targetKey(target: Target): string {
  if (target.kind === 'layer') return `layer:${target.layer.id}`;
  if (target.kind === 'typing') return `typing:${target.edit.x},${target.edit.y}`;
  return target.kind;
}

/**
 * What new text is set in: the bar's font, size and alignment as it shows them (a selected text layer's), and
 * `color`.
 */
export function newTextOptions(
  doc: ActiveDocument,
  font: string | null,
  size: number | null,
  color: string,
  align: TextAlign,
): TextOptions {
  const layer = targetLayer(doc, null);
  if (layer)
    return { font: layer.text.font, size: layer.text.size, color, align: layer.text.align ?? 'left' };
  return { font, size: size ?? defaultTextSize(doc), color, align };
}

/** A size as the field shows it: to a tenth of a pixel (a resized layer's size is rarely whole). */
const shownSize = (v: number) => Math.round(v * 10) / 10;

/** Keys that step a closed font list through its fonts (each one a change) rather than choose one. */
const LIST_KEYS = new Set([
  'ArrowUp',
  'ArrowDown',
  'ArrowLeft',
  'ArrowRight',
  'Home',
  'End',
  'PageUp',
  'PageDown',
]);

type Alignment = (typeof POINT_JUSTIFICATIONS)[number] & TextAlign;

/** The lines of an alignment button's icon: four rules set as the alignment sets a paragraph's lines. */
function AlignIcon({ align }: { align: Alignment }) {
  const widths = [14, 9, 14, 9];
  const x = (w: number) => (align === 'left' ? 1 : align === 'right' ? 15 - w : (16 - w) / 2);
  return (
    <svg viewBox="0 0 16 16" width="16" height="16" aria-hidden="true">
      {widths.map((w, i) => (
        <rect key={i} x={x(w)} y={2 + i * 3.5} width={w} height={1.5} rx={0.5} fill="currentColor" />
      ))}
    </svg>
  );
}

const ALIGN_WORDS: Record<Alignment, MessageKey> = {
  left: 'canvas.alignLeft',
  center: 'canvas.alignCenter',
  right: 'canvas.alignRight',
};

export function TypeOptionsBar({
  doc,
  typing,
  fonts,
  font,
  onFont,
  size,
  onSize,
  align,
  onAlign,
  foreground,
}: {
  doc: ActiveDocument;
  /** What is being typed, if anything, and the text just made. */
  typing: TextTyping;
  fonts: Fonts | null;
  /** New text's font, null for the bundled one; its size, null until chosen. */
  font: string | null;
  onFont: (font: string | null) => void;
  size: number | null;
  onSize: (size: number) => void;
  /** New text's alignment. */
  align: TextAlign;
  onAlign: (align: TextAlign) => void;
  foreground: ReturnType<typeof useForeground>;
}) {
  const { studio, t } = useStudioView();
  const target = targetOf(doc, typing);
  const bar = useRef<HTMLFieldSetElement>(null);
  // The size being typed or stepped: sent on Enter or when the field is left, as Photoshop's, not at each step.
  const [sizeDraft, setDraft] = useState<string | null>(null);
  // As it is now: Enter sends it and gives the focus back, and the field's blur then has nothing more to send.
  const draftNow = useRef<string | null>(null);
  const setSizeDraft = (v: string | null) => {
    draftNow.current = v;
    setDraft(v);
  };
  const key = targetKey(target);
  useEffect(() => setSizeDraft(null), [key, doc.name]);
  // The font list stepped with the keys: each step is a change, but the list keeps the keys until one is chosen.
  const fontKeyed = useRef(false);
  // A press outside the bar takes the focus from its field (a size typed there is then sent, as on leaving it),
  // wherever it lands: the canvas's keys are the document's again.
  useEffect(() => {
    const onPress = (e: PointerEvent) => {
      const focused = document.activeElement;
      const el = bar.current;
      if (!el || !(focused instanceof HTMLElement) || !el.contains(focused)) return;
      if (e.target instanceof Node && el.contains(e.target)) return;
      focused.blur();
    };
    document.addEventListener('pointerdown', onPress, true);
    return () => document.removeEventListener('pointerdown', onPress, true);
  }, []);
  // The size field's bounds are those of the call it makes.
  const sizeLimits =
    target.kind === 'layer' || target.kind === 'made'
      ? studio.tools.get(PANE_TOOLS.textSize)?.limits.size
      : studio.tools.get(PANE_TOOLS.createText)?.limits.font_size;
  const style: TextStyle =
    target.kind === 'layer'
      ? target.layer.text
      : target.kind === 'typing'
        ? target.edit
        : target.kind === 'made'
          ? target.made
          : { font, size: size ?? defaultTextSize(doc), color: foreground.color };
  /**
   * A change of the text worked on: the words being typed restyled, the layer (or the text just made, once its layer
   * has come) changed by `call`; `keep` once it holds, for new text too (a refused change keeps nothing).
   */
  const apply = (
    change: Partial<TextStyle>,
    call: string,
    args: Record<string, unknown>,
    keep: () => void,
    characters: Record<string, unknown>,
  ) => {
    // Characters selected in a layer's words: those only (修改部分文字样式), as Photoshop's bar sets a selection.
    if (target.kind === 'layer' && target.edited && typing.styleSelection(target.edited, characters)) return;
    const send = (name: string, edited: TextEdit | null) => {
      void studio.run([{ name: call, arguments: { name, ...args } }]).then((ok) => {
        if (!ok) return;
        keep();
        if (edited) typing.restyle(change, edited);
      });
    };
    if (target.kind === 'typing') {
      typing.restyle(change, target.edit);
      keep();
    } else if (target.kind === 'layer') send(refOf(target.layer), target.edited);
    else if (target.kind === 'made') {
      typing.restyleMade(change, target.made);
      void target.made.layer.then((name) => {
        if (name !== null) send(name, null);
      });
    } else keep();
  };
  const sizeShown = shownSize(style.size);
  const commitSize = (raw: string) => {
    setSizeDraft(null);
    const v = Number(raw);
    const max = sizeLimits?.max ?? Number.POSITIVE_INFINITY;
    const min = sizeLimits?.min ?? Number.NEGATIVE_INFINITY;
    if (raw.trim() === '' || !Number.isFinite(v) || v <= (sizeLimits?.above ?? 0) || v < min || v > max)
      return;
    if (v === sizeShown) return;
    apply({ size: v }, PANE_TOOLS.textSize, { size: v }, () => onSize(v), { font_size: v });
  };
  const fontShown = style.font ?? fonts?.default ?? '';
  // A layer's font the list lacks (a file's font this machine has not got) is still shown, first.
  const fontList = fonts && !fonts.fonts.includes(fontShown) ? [fontShown, ...fonts.fonts] : fonts?.fonts;
  const colorShown = style.color;
  // The paragraph panel, for a text layer that is not being typed in (as the alignment buttons).
  const [spacingOpen, setSpacingOpen] = useState(false);
  const spacingLayer = target.kind === 'layer' && target.edited === null ? target.layer : null;
  return (
    <fieldset
      ref={bar}
      class={`tool-options ${TYPE_OPTIONS}`}
      aria-label={t('canvas.textOptions')}
      onPointerDown={(e) => e.stopPropagation()}
      // A press on the bar between its fields leaves the focus where it was (in the words being typed).
      onMouseDown={(e) => {
        if (!(e.target as Element).closest('input, select')) e.preventDefault();
      }}
    >
      {fonts && fontList && (
        <label>
          {t('canvas.textFont')}
          <select
            class="text-font"
            value={fontShown}
            onPointerDown={() => {
              fontKeyed.current = false;
            }}
            onKeyDown={(e) => {
              if (e.key === 'Enter' || e.key === 'Escape') {
                // Not a new line in the words being typed, which have the keys from now on.
                e.preventDefault();
                backToDocument(e.currentTarget);
              } else fontKeyed.current = LIST_KEYS.has(e.key) || (e.key.length === 1 && e.key !== ' ');
            }}
            onChange={(e) => {
              const el = e.currentTarget as HTMLSelectElement;
              const v = el.value;
              const chosen = v === fonts.default ? null : v;
              if (v !== fontShown)
                apply({ font: chosen }, PANE_TOOLS.textFont, { font_name: v }, () => onFont(chosen), {
                  font_name: v,
                });
              // Chosen from the list: back to the document; stepped with the keys, the list keeps them.
              if (!fontKeyed.current) backToDocument(el);
            }}
          >
            {fontList.map((f) => (
              <option key={f} value={f}>
                {f}
              </option>
            ))}
          </select>
        </label>
      )}
      <label>
        {t('canvas.textSize')}
        <input
          type="number"
          min={sizeLimits?.min}
          max={sizeLimits?.max}
          value={sizeDraft ?? sizeShown}
          onInput={(e) => setSizeDraft((e.currentTarget as HTMLInputElement).value)}
          onKeyDown={(e) => {
            const el = e.currentTarget as HTMLInputElement;
            if (e.key === 'Enter') {
              // Not a new line in the words being typed, which have the keys from now on.
              e.preventDefault();
              commitSize(el.value);
              backToDocument(el);
            } else if (e.key === 'Escape') {
              e.preventDefault();
              setSizeDraft(null);
              backToDocument(el);
            }
          }}
          onBlur={(e) => {
            if (draftNow.current !== null) commitSize((e.currentTarget as HTMLInputElement).value);
          }}
        />
        px
      </label>
      {/* Photoshop's alignment buttons: a text layer's, changed at once (文字对齐); the words being typed anew, and
          what new text is set in. */}
      <fieldset class="segmented" aria-label={t('canvas.textAlign')}>
        {POINT_JUSTIFICATIONS.map((a) => {
          const current =
            target.kind === 'layer'
              ? (target.layer.text.align ?? 'left')
              : target.kind === 'typing'
                ? (target.edit.align ?? 'left')
                : target.kind === 'none'
                  ? align
                  : 'left';
          const usable =
            target.kind === 'typing' ||
            target.kind === 'none' ||
            (target.kind === 'layer' && target.edited === null);
          return (
            <button
              key={a}
              type="button"
              class="icon-button"
              aria-pressed={current === a}
              aria-label={t(ALIGN_WORDS[a])}
              title={usable ? t(ALIGN_WORDS[a]) : t('canvas.alignAfterCommit')}
              disabled={!usable}
              onClick={() => {
                if (current === a) return;
                if (target.kind === 'layer') {
                  void studio.run([
                    { name: PANE_TOOLS.textAlign, arguments: { name: refOf(target.layer), alignment: a } },
                  ]);
                  return;
                }
                // New text: the words being typed are set so, and so is what is typed next.
                if (target.kind === 'typing') typing.restyle({ align: a }, target.edit);
                onAlign(a);
              }}
            >
              <AlignIcon align={a} />
            </button>
          );
        })}
      </fieldset>
      {/* Photoshop's Toggle Text Orientation: the selected text layer set horizontal or in columns (文字方向). */}
      <button
        type="button"
        class="text-button text-orientation"
        aria-pressed={spacingLayer?.text.vertical === true}
        disabled={!spacingLayer}
        title={t(spacingLayer ? 'canvas.textVerticalTitle' : 'canvas.textVerticalNone')}
        onClick={() => {
          if (!spacingLayer) return;
          void studio.run([
            {
              name: PANE_TOOLS.textOrientation,
              arguments: {
                name: refOf(spacingLayer),
                orientation: spacingLayer.text.vertical ? 'horizontal' : 'vertical',
              },
            },
          ]);
        }}
      >
        {t('canvas.textVertical')}
      </button>
      <label>
        {t('canvas.textColor')}
        <input
          type="color"
          class="text-color"
          value={colorShown}
          onInput={(e) => {
            const v = (e.currentTarget as HTMLInputElement).value;
            // Shown as it is picked: in the words being typed, or as the foreground colour new text takes.
            if (target.kind === 'typing') typing.restyle({ color: v }, target.edit);
            else if (target.kind === 'none') foreground.preview(v);
          }}
          onChange={(e) => {
            const el = e.currentTarget as HTMLInputElement;
            const v = el.value;
            // New text is set in the foreground colour: the one chosen for it is the foreground colour too.
            const keep =
              target.kind === 'typing' || target.kind === 'none' ? () => foreground.set(v) : () => {};
            if (v.toLowerCase() !== colorShown.toLowerCase())
              apply({ color: v }, PANE_TOOLS.textColor, { color: v }, keep, { color: v });
            else keep();
            backToDocument(el);
          }}
        />
      </label>
      {spacingLayer && (
        <button
          type="button"
          class="text-button text-spacing-toggle"
          aria-expanded={spacingOpen}
          onClick={() => setSpacingOpen((open) => !open)}
        >
          {t('canvas.textSpacing')}
        </button>
      )}
      {spacingLayer && spacingOpen && <TextSpacingPanel layer={spacingLayer} />}
    </fieldset>
  );
}
