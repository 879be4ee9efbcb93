/**
 * How the palette draws each parameter, decided from the registry's schema and limits alone: no tool is
 * named here, so a new tool gets a fitting form without front-end changes.
 */
import type { ParamLimits, ParamSchema } from '../../registry/types.js';

export interface EnumOption {
  readonly value: string;
  /** Its Chinese name where the description gives one, else the value. */
  readonly label: string;
  /** The value as English words (fill_pattern → Fill pattern), for the studio's English mode. */
  readonly labelEn: string;
}

export type FieldKind =
  | { readonly kind: 'enum'; readonly options: readonly EnumOption[] }
  | { readonly kind: 'boolean' }
  | {
      readonly kind: 'number';
      readonly min?: number;
      readonly max?: number;
      readonly integer: boolean;
    }
  /** `inks`: press inks `cmyk(…)` may be typed too (registry `limits.inks`). */
  | { readonly kind: 'color'; readonly inks: boolean }
  | { readonly kind: 'layer' }
  | { readonly kind: 'layers' }
  | { readonly kind: 'document' }
  | { readonly kind: 'path' }
  | { readonly kind: 'text'; readonly multiline: boolean }
  | { readonly kind: 'strings' }
  | {
      readonly kind: 'table';
      readonly columns: readonly {
        readonly name: string;
        readonly schema: ParamSchema;
        readonly field: FieldKind;
      }[];
      readonly required: readonly string[];
    };

/**
 * Whether a string parameter names a layer that already exists: its description speaks of a layer's name
 * (图层…名称, also 裁片图层名称) and not of a new one (新图层, 图层的新名称).
 */
export function refersToLayer(schema: ParamSchema): boolean {
  const d = schema.description;
  return /图层/.test(d) && /名称/.test(d) && !/新/.test(d);
}

/** Whether a string parameter names an open document (切换到的已打开文档名称, 目标文档名称（须已打开）). */
export function refersToDocument(schema: ParamSchema): boolean {
  return /文档名称/.test(schema.description) && /已打开/.test(schema.description);
}

/**
 * Chinese names of enum values, read from the description where the registry states them as
 * "value 名称、value 名称…"; a value without one is shown as it is.
 */
export function enumOptions(schema: ParamSchema): EnumOption[] {
  return (schema.enum ?? []).map((value) => {
    const escaped = value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const match = new RegExp(
      `(?:^|[\\s：:、，,（(])${escaped}\\s+([^、，,；;。）)\\s][^、，,；;。）)]*)`,
    ).exec(schema.description);
    const label = match?.[1]?.trim();
    return { value, label: label ? label : value, labelEn: humanized(value) };
  });
}

export function fieldKind(schema: ParamSchema, limits: ParamLimits = {}): FieldKind {
  if (schema.enum?.length) return { kind: 'enum', options: enumOptions(schema) };
  switch (schema.type) {
    case 'boolean':
      return { kind: 'boolean' };
    case 'number': {
      const min = limits.min ?? limits.above;
      return {
        kind: 'number',
        ...(min !== undefined ? { min } : {}),
        ...(limits.max !== undefined ? { max: limits.max } : {}),
        integer: limits.integer === true,
      };
    }
    case 'array': {
      const items = schema.items;
      if (items?.type === 'object') {
        return {
          kind: 'table',
          columns: Object.entries(items.properties).map(([column, s]) => ({
            name: column,
            schema: s,
            field: fieldKind(s, limits.items?.[column]),
          })),
          required: items.required,
        };
      }
      return refersToLayer(schema) ? { kind: 'layers' } : { kind: 'strings' };
    }
    case 'string':
      if (limits.format === 'color') return { kind: 'color', inks: limits.inks === true };
      if (limits.format === 'path') return { kind: 'path' };
      if (refersToDocument(schema)) return { kind: 'document' };
      if (refersToLayer(schema)) return { kind: 'layer' };
      return { kind: 'text', multiline: speaksOfNewlines(schema) };
    default:
      return { kind: 'text', multiline: false };
  }
}

/**
 * Whether a string parameter holds text of several lines: its description says how a line is broken (文字内容，
 * \n 表示换行). The designer breaks it with Enter in a text area; the JSON string carries the newline.
 */
export function speaksOfNewlines(schema: ParamSchema): boolean {
  return /换行|newline|line break/i.test(schema.description);
}

/** A JSON string escape as a model writes it (`\n`, `\t`, `\"`…): the text the model reads shows it literally. */
const ESCAPE = /\\(?:[nrtbf"\\]|u[0-9a-f]{4})/i;

/**
 * A description without its notes for the model about escapes (文字内容，\n 表示换行 → 文字内容): to a designer
 * they are noise, a form's text area takes Enter as a new line. The sentence or clause (between ，；。, not
 * inside brackets) naming an escape goes; the rest is kept as written.
 */
export function withoutEscapeNotes(text: string): string {
  if (!ESCAPE.test(text)) return text;
  const clauses: string[] = [];
  let depth = 0;
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if ('（(「“'.includes(c)) depth++;
    else if ('）)」”'.includes(c)) depth = Math.max(0, depth - 1);
    else if (depth === 0 && '，,；;。'.includes(c)) {
      clauses.push(text.slice(from, i + 1));
      from = i + 1;
    }
  }
  if (from < text.length) clauses.push(text.slice(from));
  let out = clauses
    .filter((c) => !ESCAPE.test(c))
    .join('')
    .trimEnd();
  // The note closed the text: the clause now last closes it as the text did (with 。, or with nothing).
  if (/[，,；;]$/.test(out)) out = out.slice(0, -1) + (/。\s*$/.test(text) ? '。' : '');
  return out;
}

/**
 * The first clause of a parameter's description, as the field's label ("宽度（像素），整数…" → "宽度"), past a
 * leading 可选： (the form says "optional" itself) and without the asides in brackets ("可选：裁片…正放（领口…
 * 朝上）顺时针转过的角度：…" → "裁片…正放顺时针转过的角度"); a switch described by its states, by its `true` one
 * ("true 锁定，false 解锁" → "锁定").
 */
export function shortLabel(name: string, schema: ParamSchema): string {
  const text = schema.description.replace(/^可选[：:，,]\s*/, '').replace(/（[^（）]*）|\([^()]*\)/g, '');
  const head = (switchLabel(schema, text) ?? text).split(/[，,；;。：:（(]/)[0]?.trim();
  return head ? head : name;
}

/** `true` or `false` as a word of a description (not inside an identifier such as `is_true`). */
const SWITCH_STATE = /(?<![A-Za-z0-9_])(true|false)(?![A-Za-z0-9_])/;

/**
 * A switch the registry describes by its states ("true 锁定，false 解锁", "true 添加全黑蒙版（隐藏全部）；false …")
 * is labelled by what turning it on does (锁定, 添加全黑蒙版): the switch beside the label is the `true`, and the
 * JSON words mean nothing to a designer. Undefined when the description opens with a name of its own (连续：true …).
 */
function switchLabel(schema: ParamSchema, text: string): string | undefined {
  if (schema.type !== 'boolean' || !new RegExp(`^\\s*${SWITCH_STATE.source}`).test(text)) return undefined;
  const on = /(?:^|[\s，,；;。])true\s*([^，,；;。]+)/.exec(text)?.[1]?.trim();
  // Described by its `false` alone: its other clause still says what it does, without the JSON word.
  return on || text.replace(SWITCH_STATE, '').trim();
}

/**
 * A switch's help as a designer reads it: its states as the switch's own (打开时锁定，关闭时解锁；默认关闭) rather
 * than the JSON values the model sends. Any other description is returned as it is.
 */
function switchHelp(schema: ParamSchema, text: string): string {
  if (schema.type !== 'boolean') return text;
  const states = new RegExp(`(默认\\s*)?${SWITCH_STATE.source}\\s*`, 'g');
  return text.replace(states, (_, byDefault: string | undefined, state: string) => {
    const word = state === 'true' ? '打开' : '关闭';
    return byDefault ? `默认${word}` : `${word}时`;
  });
}

/**
 * An API name as English words: fill_color → Fill color, top-left → Top left, centerH → Center H, and a word
 * without a vowel is an abbreviation (dpi, png, dx → DPI, PNG, DX). The registry labels tools in English, not
 * parameters or enum values, whose names are English already: written a second time they would drift.
 */
export function humanized(name: string): string {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[\s_-]+/)
    .filter(Boolean)
    .map((w) => (/[aeiou]/i.test(w) ? w : w.toUpperCase()));
  const text = words.join(' ');
  return text ? text.charAt(0).toUpperCase() + text.slice(1) : name;
}

/** A field's or column's help: its description without the notes on escapes, a switch's states in its words. */
export function paramHelp(schema: ParamSchema): string {
  return switchHelp(schema, withoutEscapeNotes(schema.description));
}

/** A field's or column's label in both languages: the description's first clause, and its name as words. */
export function paramLabel(name: string, schema: ParamSchema): { label: string; labelEn: string } {
  return { label: shortLabel(name, schema), labelEn: humanized(name) };
}
