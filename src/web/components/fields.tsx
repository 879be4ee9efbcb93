/**
 * One input per parameter kind (see forms/field-kind.ts); each is labelled by its parameter's description, with
 * the notes for the model about escapes left out (in English by its name as words: the registry's descriptions
 * are Chinese). A required one is marked with an asterisk (named 必填), and
 * says so when it was left blank.
 */
import type { ParamLimits, ParamSchema } from '../../registry/types.js';
import { useStudioView } from '../context.js';
import { type FormValue, initialRow } from '../forms/arguments.js';
import { type EnumOption, type FieldKind, fieldKind, paramHelp, paramLabel } from '../forms/field-kind.js';
import { type Lang, labelIn } from '../i18n.js';
import { layerNames } from '../state/layers.js';
import { hexOf, useSwatch } from './useSwatch.js';

export interface FieldProps {
  readonly id: string;
  readonly name: string;
  readonly schema: ParamSchema;
  readonly limits: ParamLimits | undefined;
  readonly required: boolean;
  readonly value: FormValue;
  /** Why the run was not sent because of this field (a required one left blank). */
  readonly error?: string;
  /** A word on how the value is entered, beside "optional" (a length typed in millimetres). */
  readonly note?: string;
  onChange(value: FormValue): void;
}

/** The attributes a native control carries for its required mark and its error. */
function ariaOf(id: string, props: FieldProps) {
  return {
    'aria-required': props.required || undefined,
    'aria-invalid': props.error ? true : undefined,
    'aria-describedby': props.error ? `${id}-error` : undefined,
  };
}

/** The asterisk of a required field or column, named for assistive technology. */
function RequiredMark() {
  const { t } = useStudioView();
  return (
    <span class="required-mark" role="img" aria-label={t('form.required')} title={t('form.required')}>
      *
    </span>
  );
}

/** `#abc` / `abc` / `#aabbcc` as the `#rrggbb` a colour input needs (black for what is not a hex colour). */
export function pickerColor(text: string): string {
  return hexOf(text) ?? '#000000';
}

/** A colour field: the swatch (a picker) beside the typed value, which may be press inks where the tool takes them. */
function ColorControl({
  id,
  kind,
  text,
  aria,
  onChange,
}: {
  id: string;
  kind: Extract<FieldKind, { kind: 'color' }>;
  text: string;
  aria: ReturnType<typeof ariaOf>;
  onChange(value: string): void;
}) {
  const swatch = useSwatch(text);
  return (
    <div class="color-field">
      <input
        type="color"
        aria-hidden="true"
        tabIndex={-1}
        value={swatch ?? '#000000'}
        class={swatch ? undefined : 'no-swatch'}
        onInput={(e) => onChange(e.currentTarget.value)}
      />
      <input
        id={id}
        {...aria}
        type="text"
        spellcheck={false}
        placeholder={kind.inks ? '#rrggbb / cmyk(0,0,0,100)' : '#rrggbb'}
        value={text}
        onInput={(e) => onChange(e.currentTarget.value)}
      />
    </div>
  );
}

/** An enum value as its picker shows it: the Chinese name with the value the model sees, or the English words. */
function optionText(o: EnumOption, lang: Lang, compact: boolean): string {
  if (lang === 'en') return o.labelEn;
  return o.label === o.value || compact ? o.label : `${o.label}（${o.value}）`;
}

function Control({
  id,
  kind,
  props,
  compact = false,
}: {
  id: string;
  kind: FieldKind;
  props: FieldProps;
  /** In a table's cell: an enum shows its names alone, so the picker fits the cell. */
  compact?: boolean;
}) {
  const { studio, t, lang } = useStudioView();
  const { value, onChange, required } = props;
  const text = typeof value === 'string' ? value : '';
  const layers = layerNames(studio.state?.active?.layers ?? []);
  const aria = ariaOf(id, props);
  switch (kind.kind) {
    case 'enum':
      return (
        <select id={id} {...aria} value={text} onChange={(e) => onChange(e.currentTarget.value)}>
          {!required && <option value="">{t('form.none')}</option>}
          {kind.options.map((o) => (
            <option key={o.value} value={o.value}>
              {optionText(o, lang, compact)}
            </option>
          ))}
        </select>
      );
    case 'boolean':
      return (
        <input
          id={id}
          type="checkbox"
          role="switch"
          aria-checked={value === true}
          class="switch"
          checked={value === true}
          onChange={(e) => onChange(e.currentTarget.checked)}
        />
      );
    case 'number':
      return (
        <input
          id={id}
          {...aria}
          type="number"
          inputMode="decimal"
          value={text}
          {...(kind.min !== undefined ? { min: kind.min } : {})}
          {...(kind.max !== undefined ? { max: kind.max } : {})}
          step={kind.integer ? 1 : 'any'}
          onInput={(e) => onChange(e.currentTarget.value)}
        />
      );
    case 'color':
      return <ColorControl id={id} kind={kind} text={text} aria={aria} onChange={onChange} />;
    case 'layer':
      return (
        <input
          id={id}
          {...aria}
          type="text"
          list="atelier-layer-names"
          autoComplete="off"
          value={text}
          onInput={(e) => onChange(e.currentTarget.value)}
        />
      );
    case 'document':
      return (
        <select id={id} {...aria} value={text} onChange={(e) => onChange(e.currentTarget.value)}>
          <option value="">{t('form.none')}</option>
          {(studio.state?.documents ?? []).map((d) => (
            <option key={d.name} value={d.name}>
              {d.name}
            </option>
          ))}
        </select>
      );
    case 'path':
      return (
        <input
          id={id}
          {...aria}
          type="text"
          list="atelier-file-paths"
          autoComplete="off"
          spellcheck={false}
          value={text}
          onInput={(e) => onChange(e.currentTarget.value)}
        />
      );
    case 'layers': {
      const chosen = new Set(Array.isArray(value) ? (value as string[]) : []);
      if (layers.length === 0) return <p class="muted">{t('form.noLayers')}</p>;
      return (
        <fieldset id={id} class="checklist">
          {layers.map((name) => (
            <label key={name} class="check">
              <input
                type="checkbox"
                checked={chosen.has(name)}
                onChange={(e) => {
                  const next = new Set(chosen);
                  if (e.currentTarget.checked) next.add(name);
                  else next.delete(name);
                  onChange(layers.filter((n) => next.has(n)));
                }}
              />
              <span>{name}</span>
            </label>
          ))}
        </fieldset>
      );
    }
    case 'strings':
      return (
        <textarea
          id={id}
          rows={3}
          placeholder={t('form.onePerLine')}
          value={Array.isArray(value) ? (value as string[]).join('\n') : ''}
          onInput={(e) =>
            onChange(
              e.currentTarget.value
                .split('\n')
                .map((s) => s.trim())
                .filter(Boolean),
            )
          }
        />
      );
    case 'table':
      return <TableField id={id} kind={kind} props={props} />;
    case 'text':
      // Several lines: Enter breaks the line (the form runs from its button), and the newline is sent as it is.
      return kind.multiline ? (
        <textarea id={id} {...aria} rows={3} value={text} onInput={(e) => onChange(e.currentTarget.value)} />
      ) : (
        <input id={id} {...aria} type="text" value={text} onInput={(e) => onChange(e.currentTarget.value)} />
      );
  }
}

/**
 * A table of objects (a piece per row): each row a card of labelled cells that wrap onto as many lines as the
 * form's width needs, so nothing is cut or scrolled sideways in the narrow pane; at the width of four cells a row
 * is one line. A new row starts as a form does (see `initialRow`); 填入识别结果 fills each column the analysis
 * reports as text (a piece's name, type, colour, part).
 */
function TableField({
  id,
  kind,
  props,
}: {
  id: string;
  kind: Extract<FieldKind, { kind: 'table' }>;
  props: FieldProps;
}) {
  const { studio, t, lang } = useStudioView();
  const rows = (Array.isArray(props.value) ? props.value : []) as Record<string, string>[];
  const set = (i: number, column: string, v: FormValue) =>
    props.onChange(rows.map((row, j) => (j === i ? { ...row, [column]: String(v) } : row)));
  const pieces = studio.state?.garment.pieces ?? [];
  const items = props.schema.items?.type === 'object' ? props.schema.items : undefined;
  const newRow = () => (items ? initialRow(items, props.limits?.items) : {});
  const fromAnalysis = (piece: Readonly<Record<string, unknown>>) => {
    const row = newRow();
    for (const c of kind.columns) {
      const v = piece[c.name];
      if (typeof v === 'string' && v !== '') row[c.name] = v;
    }
    return row;
  };
  return (
    <div class="table-field" id={id}>
      {rows.length > 0 && (
        <ol class="table-rows">
          {rows.map((row, i) => (
            <li key={i}>
              <fieldset class="table-row" aria-label={t('form.row', { n: i + 1 })}>
                <div class="row-cells">
                  {kind.columns.map((c) => {
                    const cell = `${id}-${i}-${c.name}`;
                    const required = kind.required.includes(c.name);
                    return (
                      <div key={c.name} class={`cell cell-${c.field.kind}`}>
                        <label for={cell} title={paramHelp(c.schema)}>
                          {labelIn(paramLabel(c.name, c.schema), lang)}
                          {required && c.field.kind !== 'boolean' && <RequiredMark />}
                        </label>
                        <Control
                          id={cell}
                          kind={c.field}
                          compact
                          props={{
                            ...props,
                            id: cell,
                            name: c.name,
                            schema: c.schema,
                            limits: undefined,
                            required,
                            error: undefined,
                            value: row[c.name] ?? '',
                            onChange: (v) => set(i, c.name, v),
                          }}
                        />
                      </div>
                    );
                  })}
                </div>
                <button
                  type="button"
                  class="icon-button remove-row"
                  aria-label={t('form.removeRow', { n: i + 1 })}
                  title={t('form.removeRow', { n: i + 1 })}
                  onClick={() => props.onChange(rows.filter((_, j) => j !== i))}
                >
                  ×
                </button>
              </fieldset>
            </li>
          ))}
        </ol>
      )}
      <div class="row-actions">
        <button type="button" class="ghost" onClick={() => props.onChange([...rows, newRow()])}>
          {t('form.addRow')}
        </button>
        {pieces.length > 0 && (
          <button type="button" class="ghost" onClick={() => props.onChange(pieces.map(fromAnalysis))}>
            {t('form.fromAnalysis')}
          </button>
        )}
      </div>
    </div>
  );
}

export function Field(props: FieldProps) {
  const { t, lang } = useStudioView();
  const kind = fieldKind(props.schema, props.limits);
  // Ranges, defaults and units are already in the registry's description; only "optional" is added.
  const notes = [...(props.note ? [props.note] : []), ...(props.required ? [] : [t('form.optional')])];
  const inline = kind.kind === 'boolean';
  const label = labelIn(paramLabel(props.name, props.schema), lang);
  const help = paramHelp(props.schema);
  return (
    <div class={`field field-${kind.kind}${inline ? ' inline' : ''}`}>
      <div class="field-head">
        <label for={props.id}>{label}</label>
        {/* A switch is never blank: off is a value. */}
        {props.required && !inline && <RequiredMark />}
        {/* In English the label is the name already. */}
        {lang === 'zh' && <code class="param-name">{props.name}</code>}
        {inline && <Control id={props.id} kind={kind} props={props} />}
      </div>
      {!inline && <Control id={props.id} kind={kind} props={props} />}
      {props.error && (
        <p class="field-error" id={`${props.id}-error`}>
          {props.error}
        </p>
      )}
      {/* Help that only repeats the label (文字内容) is left out. */}
      {(help !== label || notes.length > 0) && (
        <p class="field-help">
          {help !== label && help}
          {notes.length > 0 && (
            <span class="field-notes">
              {help !== label && ' · '}
              {notes.join(' · ')}
            </span>
          )}
        </p>
      )}
    </div>
  );
}
