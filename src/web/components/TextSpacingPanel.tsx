/**
 * Photoshop's character and paragraph panels for a text layer, opened from the type tool's options bar (段落): a
 * field for each setting set_text_spacing takes, and for the character panel's tsume, scales and baseline shift
 * (style_text_range's, for every character) — labels, ranges and units the registry's — showing the layer's
 * value (blank where its characters differ) and changing it when Enter is pressed or the field is left, as the
 * panels' fields do. A value outside the setting's range is not sent; the field goes back to the layer's. Above
 * them, the character panel's row of style buttons in Photoshop's order: 仿粗体, 仿斜体, 全部大写, 小型大写, 上标, 下标,
 * 下划线, 删除线 (style_text_range's switches and its case and position values, labelled from the registry), each
 * pressed when every character has it, and setting or clearing it for all of them.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { FAUX_PARAMS } from '../../registry/tools/text-params.js';
import type { FauxName, LayerNode } from '../api/types.js';
import { useStudioView } from '../context.js';
import { enumOptions, paramLabel } from '../forms/field-kind.js';
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

type CharacterField = 'tsume' | 'horizontal_scale' | 'vertical_scale' | 'baseline_shift';
/**
 * The character panel's fields style_text_range sets for every character, each at its value when not set, in the
 * panel's order after leading and tracking: 比例间距, 垂直缩放, 水平缩放, 基线偏移.
 */
const CHARACTER_DEFAULTS: Readonly<Record<CharacterField, number>> = {
  tsume: 0,
  vertical_scale: 100,
  horizontal_scale: 100,
  baseline_shift: 0,
};

/** A character setting's value on a layer: the one its characters share, undefined where they differ. */
function characterValue(t: TextNode, name: CharacterField): number | undefined {
  const shared = t.character?.[name];
  if (shared !== undefined) return shared;
  const differ = t.styles?.some((s) => s.character?.[name] !== undefined) === true;
  return differ ? undefined : CHARACTER_DEFAULTS[name];
}

/** The row's buttons in Photoshop's order: which switch or value each is, around the case and position ones. */
const BEFORE_CASE = [FAUX_PARAMS.fauxBold, FAUX_PARAMS.fauxItalic];
const AFTER_CASE = [FAUX_PARAMS.underline, FAUX_PARAMS.strikethrough];
const VALUED = ['caps', 'position'] as const;

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
  const styler = studio.tools.get(PANE_TOOLS.textRange);
  // Each field: its parameter, the tool that sets it, the layer's value (undefined: its characters differ); in the
  // panels' order: the character panel's (leading, tracking, then the scales and shift), the paragraph's.
  const spacing = Object.keys(tool.parameters.properties)
    .filter((name) => CURRENT[name])
    .map((name) => ({ name, of: tool, value: CURRENT[name]!(layer.text) as number | undefined }));
  const character = styler
    ? (Object.keys(CHARACTER_DEFAULTS) as CharacterField[])
        .filter((name) => styler.parameters.properties[name])
        .map((name) => ({ name, of: styler, value: characterValue(layer.text, name) }))
    : [];
  const first = spacing.findIndex((f) => f.name !== 'leading' && f.name !== 'tracking');
  const cut = first < 0 ? spacing.length : first;
  const fields = [...spacing.slice(0, cut), ...character, ...spacing.slice(cut)];
  /** Every character, for style_text_range: the whole text, its one occurrence. */
  const everyCharacter = { name: refOf(layer), text: layer.text.content, occurrence: 1 };
  const commit = (field: (typeof fields)[number], raw: string) => {
    const { name, of } = field;
    setDrafts(({ [name]: _done, ...rest }) => rest);
    const limits = of.limits[name];
    const v = Number(raw);
    if (raw.trim() === '' || !Number.isFinite(v)) return;
    if ((limits?.min !== undefined && v < limits.min) || (limits?.max !== undefined && v > limits.max))
      return;
    if (limits?.integer && !Number.isInteger(v)) return;
    if (v === field.value) return;
    const args = of === tool ? { name: refOf(layer) } : everyCharacter;
    void studio.run([{ name: of.name, arguments: { ...args, [name]: v } }]);
  };
  /** A button of the row: its label, whether it is on for every character, and what pressing it sends. */
  const button = (name: FauxName) => {
    const schema = styler?.parameters.properties[name];
    if (!schema) return [];
    const on = layer.text.faux?.includes(name) === true;
    return [{ key: name, label: labelIn(paramLabel(name, schema), lang), on, change: { [name]: !on } }];
  };
  const valued = VALUED.flatMap((name) => {
    const schema = styler?.parameters.properties[name];
    if (!schema) return [];
    const now = layer.text.character?.[name];
    return enumOptions(schema)
      .filter((o) => o.value !== 'normal')
      .map((o) => ({
        key: o.value,
        label: labelIn(o, lang),
        on: now === o.value,
        change: { [name]: now === o.value ? 'normal' : o.value },
      }));
  });
  const buttons = [...BEFORE_CASE.flatMap(button), ...valued, ...AFTER_CASE.flatMap(button)];
  return (
    <fieldset class="text-spacing" aria-label={t('canvas.textSpacing')}>
      {buttons.length > 0 && (
        <fieldset class="text-faux" aria-label={t('canvas.textFaux')}>
          {buttons.map(({ key, label, on, change }) => (
            <button
              key={key}
              type="button"
              class={`text-button faux-${key}`}
              aria-pressed={on}
              onClick={() => {
                void studio.run([
                  { name: PANE_TOOLS.textRange, arguments: { ...everyCharacter, ...change } },
                ]);
              }}
            >
              {label}
            </button>
          ))}
        </fieldset>
      )}
      {fields.map((field) => {
        const { name, of } = field;
        const schema = of.parameters.properties[name]!;
        const limits = of.limits[name];
        return (
          <label key={name}>
            {labelIn(paramLabel(name, schema), lang)}
            <input
              type="number"
              class={`spacing-${name}`}
              min={limits?.min}
              max={limits?.max}
              step={limits?.integer ? 1 : 'any'}
              value={drafts[name] ?? (field.value === undefined ? '' : shown(field.value))}
              onInput={(e) => {
                const v = (e.currentTarget as HTMLInputElement).value;
                setDrafts((d) => ({ ...d, [name]: v }));
              }}
              onKeyDown={(e) => {
                const el = e.currentTarget as HTMLInputElement;
                if (e.key === 'Enter') {
                  e.preventDefault();
                  commit(field, el.value);
                  backToDocument(el);
                } else if (e.key === 'Escape') {
                  e.preventDefault();
                  setDrafts(({ [name]: _dropped, ...rest }) => rest);
                  backToDocument(el);
                }
              }}
              onBlur={(e) => {
                if (draftsNow.current[name] !== undefined) {
                  commit(field, (e.currentTarget as HTMLInputElement).value);
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
