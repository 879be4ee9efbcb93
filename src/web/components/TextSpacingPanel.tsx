/**
 * Photoshop's character and paragraph panels for a text layer, opened from the type tool's options bar (段落): a
 * field for each setting set_text_spacing takes — its labels, ranges and units the registry's — showing the
 * layer's value and changing it when Enter is pressed or the field is left (修改行距字距), as the panels' fields do.
 * A value outside the setting's range is not sent; the field goes back to the layer's. Below them, the character
 * panel's faux style buttons (仿粗体, 仿斜体, 下划线, 删除线: style_text_range's switches, labelled from the registry),
 * pressed when every character has the style, and setting or clearing it for all of them.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { FAUX_PARAMS } from '../../registry/tools/text-params.js';
import type { LayerNode } from '../api/types.js';
import { useStudioView } from '../context.js';
import { paramLabel } from '../forms/field-kind.js';
import { labelIn } from '../i18n.js';
import { refOf } from '../state/layers.js';
import { PANE_TOOLS } from '../state/pane-tools.js';
import { backToDocument } from './back-to-document.js';

type TextNode = NonNullable<LayerNode['text']>;

/** Each setting's value on a layer, by set_text_spacing's parameter (0: auto leading, no tracking, none). */
const CURRENT: Readonly<Record<string, (t: TextNode) => number>> = {
  leading: (t) => t.leading ?? 0,
  tracking: (t) => t.tracking ?? 0,
  indent_first: (t) => t.indent?.first ?? 0,
  indent_left: (t) => t.indent?.left ?? 0,
  indent_right: (t) => t.indent?.right ?? 0,
  space_before: (t) => t.space?.before ?? 0,
  space_after: (t) => t.space?.after ?? 0,
};

const shown = (v: number) => String(Math.round(v * 100) / 100);

export function TextSpacingPanel({ layer }: { layer: LayerNode & { text: TextNode } }) {
  const { studio, t, lang } = useStudioView();
  const tool = studio.tools.get(PANE_TOOLS.textSpacing);
  // What is being typed in a field, until Enter or leaving it: a redraw meanwhile must not reset it.
  const [drafts, setShownDrafts] = useState<Readonly<Record<string, string>>>({});
  // As they are now: Enter sends a field's and gives the focus back, and its blur then has nothing more to send.
  const draftsNow = useRef<Readonly<Record<string, string>>>({});
  const setDrafts = (
    change: (d: Readonly<Record<string, string>>) => Readonly<Record<string, string>>,
  ): void => {
    draftsNow.current = change(draftsNow.current);
    setShownDrafts(draftsNow.current);
  };
  useEffect(() => setDrafts(() => ({})), [layer.id]);
  if (!tool) return null;
  const params = Object.entries(tool.parameters.properties).filter(([name]) => CURRENT[name]);
  const commit = (name: string, raw: string) => {
    setDrafts(({ [name]: _done, ...rest }) => rest);
    const limits = tool.limits[name];
    const v = Number(raw);
    if (raw.trim() === '' || !Number.isFinite(v)) return;
    if ((limits?.min !== undefined && v < limits.min) || (limits?.max !== undefined && v > limits.max))
      return;
    if (limits?.integer && !Number.isInteger(v)) return;
    if (v === CURRENT[name]!(layer.text)) return;
    void studio.run([{ name: tool.name, arguments: { name: refOf(layer), [name]: v } }]);
  };
  const styler = studio.tools.get(PANE_TOOLS.textRange);
  const faux = styler
    ? Object.values(FAUX_PARAMS).flatMap((name) => {
        const schema = styler.parameters.properties[name];
        return schema ? [{ name, label: labelIn(paramLabel(name, schema), lang) }] : [];
      })
    : [];
  return (
    <fieldset class="text-spacing" aria-label={t('canvas.textSpacing')}>
      {faux.length > 0 && (
        <fieldset class="text-faux" aria-label={t('canvas.textFaux')}>
          {faux.map(({ name, label }) => {
            const on = layer.text.faux?.includes(name) === true;
            return (
              <button
                key={name}
                type="button"
                class={`text-button faux-${name}`}
                aria-pressed={on}
                onClick={() => {
                  // Every character: the whole text, its one occurrence.
                  void studio.run([
                    {
                      name: PANE_TOOLS.textRange,
                      arguments: { name: refOf(layer), text: layer.text.content, occurrence: 1, [name]: !on },
                    },
                  ]);
                }}
              >
                {label}
              </button>
            );
          })}
        </fieldset>
      )}
      {params.map(([name, schema]) => {
        const limits = tool.limits[name];
        return (
          <label key={name}>
            {labelIn(paramLabel(name, schema), lang)}
            <input
              type="number"
              class={`spacing-${name}`}
              min={limits?.min}
              max={limits?.max}
              step={limits?.integer ? 1 : 'any'}
              value={drafts[name] ?? shown(CURRENT[name]!(layer.text))}
              onInput={(e) => {
                const v = (e.currentTarget as HTMLInputElement).value;
                setDrafts((d) => ({ ...d, [name]: v }));
              }}
              onKeyDown={(e) => {
                const el = e.currentTarget as HTMLInputElement;
                if (e.key === 'Enter') {
                  e.preventDefault();
                  commit(name, el.value);
                  backToDocument(el);
                } else if (e.key === 'Escape') {
                  e.preventDefault();
                  setDrafts(({ [name]: _dropped, ...rest }) => rest);
                  backToDocument(el);
                }
              }}
              onBlur={(e) => {
                if (draftsNow.current[name] !== undefined) {
                  commit(name, (e.currentTarget as HTMLInputElement).value);
                }
              }}
            />
            {limits?.unit ?? ''}
          </label>
        );
      })}
    </fieldset>
  );
}
