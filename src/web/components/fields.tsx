/**
 * One input per parameter kind (see forms/field-kind.ts); each is labelled by its parameter's description, with
 * the notes for the model about escapes left out. A required one is marked with an asterisk (named 必填), and
 * says so when it was left blank.
 */
import type { ParamLimits, ParamSchema } from '../../registry/types.js';
import { useStudioView } from '../context.js';
import type { FormValue } from '../forms/arguments.js';
import { type FieldKind, fieldKind, shortLabel, withoutEscapeNotes } from '../forms/field-kind.js';
import { layerNames } from '../state/layers.js';

export interface FieldProps {
  readonly id: string;
  readonly name: string;
  readonly schema: ParamSchema;
  readonly limits: ParamLimits | undefined;
  readonly required: boolean;
  readonly value: FormValue;
  /** Why the run was not sent because of this field (a required one left blank). */
  readonly error?: string;
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

const HEX = /^#?([0-9a-f]{3}|[0-9a-f]{6})$/i;

/** `#abc` / `abc` / `#aabbcc` as the `#rrggbb` a colour input needs. */
export function pickerColor(text: string): string {
  const m = HEX.exec(text.trim());
  if (!m) return '#000000';
  const hex = m[1]!.length === 3 ? [...m[1]!].map((c) => c + c).join('') : m[1]!;
  return `#${hex.toLowerCase()}`;
}

function Control({ id, kind, props }: { id: string; kind: FieldKind; props: FieldProps }) {
  const { studio, t } = useStudioView();
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
              {o.label === o.value ? o.value : `${o.label}（${o.value}）`}
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
      return (
        <div class="color-field">
          <input
            type="color"
            aria-hidden="true"
            tabIndex={-1}
            value={pickerColor(text)}
            onInput={(e) => onChange(e.currentTarget.value)}
          />
          <input
            id={id}
            {...aria}
            type="text"
            spellcheck={false}
            placeholder="#rrggbb"
            value={text}
            onInput={(e) => onChange(e.currentTarget.value)}
          />
        </div>
      );
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

function TableField({
  id,
  kind,
  props,
}: {
  id: string;
  kind: Extract<FieldKind, { kind: 'table' }>;
  props: FieldProps;
}) {
  const { studio, t } = useStudioView();
  const rows = (Array.isArray(props.value) ? props.value : []) as Record<string, string>[];
  const set = (i: number, column: string, v: FormValue) =>
    props.onChange(rows.map((row, j) => (j === i ? { ...row, [column]: String(v) } : row)));
  const pieces = studio.state?.garment.pieces ?? [];
  const columns = kind.columns.map((c) => c.name);
  return (
    <div class="table-field" id={id}>
      <table>
        <thead>
          <tr>
            {kind.columns.map((c) => (
              <th
                key={c.name}
                class={`column-${c.field.kind}`}
                title={withoutEscapeNotes(c.schema.description)}
              >
                {shortLabel(c.name, c.schema)}
                {kind.required.includes(c.name) && c.field.kind !== 'boolean' && <RequiredMark />}
              </th>
            ))}
            <th />
          </tr>
        </thead>
        <tbody>
          {rows.map((row, i) => (
            <tr key={i}>
              {kind.columns.map((c) => (
                <td key={c.name}>
                  <Control
                    id={`${id}-${i}-${c.name}`}
                    kind={c.field}
                    props={{
                      ...props,
                      id: `${id}-${i}-${c.name}`,
                      name: c.name,
                      schema: c.schema,
                      limits: undefined,
                      required: kind.required.includes(c.name),
                      error: undefined,
                      value: row[c.name] ?? '',
                      onChange: (v) => set(i, c.name, v),
                    }}
                  />
                </td>
              ))}
              <td>
                <button
                  type="button"
                  class="icon-button"
                  aria-label={t('form.removeRow')}
                  onClick={() => props.onChange(rows.filter((_, j) => j !== i))}
                >
                  ×
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <div class="row-actions">
        <button
          type="button"
          class="ghost"
          onClick={() => props.onChange([...rows, Object.fromEntries(columns.map((c) => [c, '']))])}
        >
          {t('form.addRow')}
        </button>
        {pieces.length > 0 && (
          <button
            type="button"
            class="ghost"
            onClick={() =>
              props.onChange(
                pieces.map((p) => ({
                  ...Object.fromEntries(columns.map((c) => [c, ''])),
                  name: p.name,
                  type: p.type ?? '',
                  color: p.color ?? '',
                })),
              )
            }
          >
            {t('form.fromAnalysis')}
          </button>
        )}
      </div>
    </div>
  );
}

export function Field(props: FieldProps) {
  const { t } = useStudioView();
  const kind = fieldKind(props.schema, props.limits);
  // Ranges, defaults and units are already in the registry's description; only "optional" is added.
  const notes = props.required ? [] : [t('form.optional')];
  const inline = kind.kind === 'boolean';
  const label = shortLabel(props.name, props.schema);
  const help = withoutEscapeNotes(props.schema.description);
  return (
    <div class={`field field-${kind.kind}${inline ? ' inline' : ''}`}>
      <div class="field-head">
        <label for={props.id}>{label}</label>
        {/* A switch is never blank: off is a value. */}
        {props.required && !inline && <RequiredMark />}
        <code class="param-name">{props.name}</code>
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
