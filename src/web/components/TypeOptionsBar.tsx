/**
 * Photoshop's options bar for the type tool: font, size and colour. With one text layer selected, or being typed
 * in, it shows that layer's, and a change is made to the layer at once (修改字体, 修改字号, 修改文字颜色) as well
 * as kept for new text, as Photoshop's does; otherwise, and while new text is typed, it holds what new text is set
 * in: the chosen font and size, and the document's foreground colour.
 */
import type { ActiveDocument, LayerNode } from '../api/types.js';
import { useStudioView } from '../context.js';
import { layerWithId, refOf } from '../state/layers.js';
import { PANE_TOOLS } from '../state/pane-tools.js';
import { defaultTextSize, type TextEdit } from './TextTool.js';
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
  // The size field's bounds are create_text_layer's font_size limits (set_text_size's are the same).
  const sizeLimits = studio.tools.get(PANE_TOOLS.createText)?.limits.font_size;
  const change = (name: string, args: Record<string, unknown>) => {
    if (layer) void studio.run([{ name, arguments: { name: refOf(layer), ...args } }]);
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
              onFont(v === fonts.default ? null : v);
              if (layer && v !== layer.text.font) change(PANE_TOOLS.textFont, { font_name: v });
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
          min={1}
          max={sizeLimits?.max}
          value={layer ? Math.round(layer.text.size * 10) / 10 : (size ?? defaultTextSize(doc))}
          onChange={(e) => {
            const v = Number((e.currentTarget as HTMLInputElement).value);
            const max = sizeLimits?.max ?? Number.POSITIVE_INFINITY;
            if (!(Number.isFinite(v) && v > (sizeLimits?.above ?? 0) && v <= max)) return;
            onSize(v);
            if (layer && v !== layer.text.size) change(PANE_TOOLS.textSize, { size: v });
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
            else if (v.toLowerCase() !== layer.text.color) change(PANE_TOOLS.textColor, { color: v });
          }}
        />
      </label>
    </fieldset>
  );
}
