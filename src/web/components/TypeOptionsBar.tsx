/**
 * Photoshop's options bar for the type tool: font, size and colour. With one text layer selected, or being typed
 * in, it shows that layer's, and a change is made to the layer at once (修改字体, 修改字号, 修改文字颜色); its font
 * and size are then what new text is set in too, as in Photoshop, where new text takes the options bar's settings.
 * With no text layer selected, and while new text is typed, it holds what new text is set in: the chosen font and
 * size, and the document's foreground colour.
 */
import { useEffect, useState } from 'preact/hooks';
import type { ActiveDocument, LayerNode } from '../api/types.js';
import { useStudioView } from '../context.js';
import { layerWithId, refOf } from '../state/layers.js';
import { PANE_TOOLS } from '../state/pane-tools.js';
import { defaultTextSize, type TextEdit, type TextOptions } from './TextTool.js';
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

/** What new text is set in: the bar's font and size as it shows them (a selected text layer's), and `color`. */
export function newTextOptions(
  doc: ActiveDocument,
  font: string | null,
  size: number | null,
  color: string,
): TextOptions {
  const layer = targetLayer(doc, null);
  if (layer) return { font: layer.text.font, size: layer.text.size, color };
  return { font, size: size ?? defaultTextSize(doc), color };
}

/** A size as the field shows it: to a tenth of a pixel (a resized layer's size is rarely whole). */
const shownSize = (v: number) => Math.round(v * 10) / 10;

export function TypeOptionsBar({
  doc,
  typing,
  fonts,
  font,
  onFont,
  size,
  onSize,
  foreground,
}: {
  doc: ActiveDocument;
  /** What is being typed, if anything. */
  typing: TextEdit | null;
  fonts: Fonts | null;
  /** New text's font, null for the bundled one; its size, null until chosen. */
  font: string | null;
  onFont: (font: string | null) => void;
  size: number | null;
  onSize: (size: number) => void;
  foreground: ReturnType<typeof useForeground>;
}) {
  const { studio, t } = useStudioView();
  const layer = targetLayer(doc, typing);
  // The size being typed or stepped: sent on Enter or when the field is left, as Photoshop's, not at each step.
  const [sizeDraft, setSizeDraft] = useState<string | null>(null);
  useEffect(() => setSizeDraft(null), [layer?.id, doc.name]);
  // The size field's bounds are those of the call it makes.
  const sizeLimits = layer
    ? studio.tools.get(PANE_TOOLS.textSize)?.limits.size
    : studio.tools.get(PANE_TOOLS.createText)?.limits.font_size;
  /** `args` sent to the layer shown; `then` once the layer has them (a refused change keeps nothing). */
  const change = (layer: TextLayerNode, name: string, args: Record<string, unknown>, then?: () => void) => {
    void studio.run([{ name, arguments: { name: refOf(layer), ...args } }]).then((ok) => {
      if (ok) then?.();
    });
  };
  const sizeShown = layer ? shownSize(layer.text.size) : (size ?? defaultTextSize(doc));
  const commitSize = (raw: string) => {
    setSizeDraft(null);
    const v = Number(raw);
    const max = sizeLimits?.max ?? Number.POSITIVE_INFINITY;
    const min = sizeLimits?.min ?? Number.NEGATIVE_INFINITY;
    if (raw.trim() === '' || !Number.isFinite(v) || v <= (sizeLimits?.above ?? 0) || v < min || v > max)
      return;
    if (v === sizeShown) return;
    if (layer) change(layer, PANE_TOOLS.textSize, { size: v }, () => onSize(v));
    else onSize(v);
  };
  const fontShown = layer ? layer.text.font : (font ?? fonts?.default ?? '');
  // A layer's font the list lacks (a file's font this machine has not got) is still shown, first.
  const fontList = fonts && !fonts.fonts.includes(fontShown) ? [fontShown, ...fonts.fonts] : fonts?.fonts;
  return (
    <fieldset
      class="tool-options"
      aria-label={t('canvas.textOptions')}
      onPointerDown={(e) => e.stopPropagation()}
    >
      {fonts && fontList && (
        <label>
          {t('canvas.textFont')}
          <select
            class="text-font"
            value={fontShown}
            onChange={(e) => {
              const v = (e.currentTarget as HTMLSelectElement).value;
              const keep = () => onFont(v === fonts.default ? null : v);
              if (!layer) keep();
              else if (v !== layer.text.font) change(layer, PANE_TOOLS.textFont, { font_name: v }, keep);
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
            if (e.key === 'Enter') commitSize((e.currentTarget as HTMLInputElement).value);
            else if (e.key === 'Escape') setSizeDraft(null);
          }}
          onBlur={(e) => {
            if (sizeDraft !== null) commitSize((e.currentTarget as HTMLInputElement).value);
          }}
        />
        px
      </label>
      <label>
        {t('canvas.textColor')}
        <input
          type="color"
          class="text-color"
          value={layer ? layer.text.color : foreground.color}
          onInput={(e) => {
            if (!layer) foreground.preview((e.currentTarget as HTMLInputElement).value);
          }}
          onChange={(e) => {
            const v = (e.currentTarget as HTMLInputElement).value;
            if (!layer) foreground.set(v);
            else if (v.toLowerCase() !== layer.text.color) change(layer, PANE_TOOLS.textColor, { color: v });
          }}
        />
      </label>
    </fieldset>
  );
}
