/**
 * A text layer's characters in more than one font, size or colour (TextSpec's `runs`, model.ts), as Photoshop's
 * style runs hold them: a headline with its price larger and red, a word in bold.
 *
 * - The runs cover the content in order, line breaks included; a spec whose characters share one style has no
 *   runs, and where it has them its own `font`, `size` and `color` are the first run's. Every function here
 *   returns a spec in that form (withRuns), adjacent runs of one style merged.
 * - The first character's size places point text: its anchor (the first baseline's start, a PSD's transform
 *   origin) stays where it is when that size changes, as in Photoshop (resizeTextSpec).
 * - New words (set_text_content) keep the style of every character they keep (by a character diff, jsdiff's: the
 *   model gives the whole new text, not the keys typed), and new characters take the style of the first character
 *   they replace, or of the one before them where they replace none (the one after them at the very start), as
 *   Photoshop's type tool does.
 * - A change for the whole layer (set_text_font, set_text_color, set_text_size) sets every character, as
 *   Photoshop's character panel does with the whole layer chosen; a change for some characters (style_text_range)
 *   sets only those.
 *
 * Layout reads the styles by position (stylesIn): each stretch is measured and drawn in its own font, size and
 * colour, a line is as high as its largest characters (text.ts).
 */
import { diffChars } from 'diff';
import type { CharacterStyle, RGB, TextRun, TextSpec } from './model.js';
import {
  type SettingsChange,
  sameSettings,
  settingsOf,
  withoutSettings,
  withSettings,
} from './text-character.js';
import { type FauxKey, fauxOf, sameFaux, withFaux, withoutFaux } from './text-decoration.js';
import { anchorDrop } from './text-orientation.js';
import { paragraphOf } from './text-paragraph.js';

export type { CharacterStyle, TextRun };

/** The style of the spec's own fields: every character's where it has no runs, else its first run's. */
export function baseStyle(spec: TextSpec): CharacterStyle {
  return { font: spec.font, size: spec.size, color: spec.color, ...fauxOf(spec), ...settingsOf(spec) };
}

export const sameColour = (a: RGB, b: RGB) => a.r === b.r && a.g === b.g && a.b === b.b;

export function sameStyle(a: CharacterStyle, b: CharacterStyle): boolean {
  return (
    a.font === b.font &&
    a.size === b.size &&
    sameColour(a.color, b.color) &&
    sameFaux(a, b) &&
    sameSettings(a, b)
  );
}

/** Whether `runs` covers `content` exactly with runs of some length each. */
function coversContent(runs: readonly TextRun[] | undefined, content: string): runs is readonly TextRun[] {
  if (!runs || runs.length === 0) return false;
  let total = 0;
  for (const r of runs) {
    if (!(Number.isInteger(r.length) && r.length > 0)) return false;
    total += r.length;
  }
  return total === content.length;
}

/** The spec's styles as runs over its whole content (one run where its characters share one style). */
export function runList(spec: TextSpec): TextRun[] {
  if (coversContent(spec.runs, spec.content)) return spec.runs.map((r) => ({ ...r }));
  return [{ ...baseStyle(spec), length: spec.content.length }];
}

/** Whether some characters of `spec` are set differently from the others. */
export function hasRuns(spec: TextSpec): boolean {
  return runList(spec).length > 1;
}

/**
 * `spec` at font size `size`, where Photoshop keeps it: point text about its anchor (the start, centre or end of
 * its first baseline, by its alignment, so centred text stays centred on the same point); paragraph text with its
 * box where it is, top-left corner included (for transformed text the corner the transform carries it to).
 */
export function resizeTextSpec(spec: TextSpec, size: number): TextSpec {
  return reanchored(spec, { ...spec, size });
}

/**
 * `next` (`spec` with another first size or orientation, which move its anchor from its `x, y`) placed where
 * Photoshop keeps text through such a change: point text with its anchor where `spec` has it, paragraph text with
 * its box's top-left corner there (through the text's transform).
 */
export function reanchored(spec: TextSpec, next: TextSpec): TextSpec {
  const round = (n: number) => Math.round(n * 1e4) / 1e4 + 0;
  const b0 = anchorDrop(spec);
  const b1 = anchorDrop(next);
  if (!paragraphOf(spec).box) {
    // The anchor (x, y + its drop, text-orientation.ts) is the transform's fixed point: it stays put in the document.
    return { ...next, y: round(spec.y + b0 - b1) };
  }
  if (!spec.transform) return next;
  const [, , c, d] = spec.transform;
  // Anchor = corner + M·(0, drop): the anchor moves by M·(0, b1 − b0); (x, y) is anchor − (0, b1).
  const ax = spec.x + c * (b1 - b0);
  const ay = spec.y + b0 + d * (b1 - b0);
  return { ...next, x: round(ax), y: round(ay - b1) };
}

/**
 * `spec` with its characters styled by `runs` (which must cover its content): runs of one style merged, none kept
 * where all share one, the spec's own fields the first run's, and its anchor where it was.
 */
export function withRuns(spec: TextSpec, runs: readonly TextRun[]): TextSpec {
  const merged: TextRun[] = [];
  for (const r of runs) {
    if (r.length <= 0) continue;
    const prev = merged.at(-1);
    if (prev && sameStyle(prev, r)) merged[merged.length - 1] = { ...prev, length: prev.length + r.length };
    else {
      const { font, size, color, length } = r;
      merged.push({ font, size, color: { ...color }, ...fauxOf(r), ...settingsOf(r), length });
    }
  }
  const first = merged[0] ?? baseStyle(spec);
  const { runs: _old, ...rest } = withoutSettings(withoutFaux(spec));
  const placed = first.size === spec.size ? rest : resizeTextSpec(rest, first.size);
  return {
    ...placed,
    font: first.font,
    color: first.color,
    ...fauxOf(first),
    ...settingsOf(first),
    ...(merged.length > 1 ? { runs: merged } : {}),
  };
}

/** A stretch of characters `[start, end)` and its style. */
export interface StyledRange {
  readonly start: number;
  readonly end: number;
  readonly style: CharacterStyle;
}

/** The styles of the characters `[start, end)`, in order, each over the stretch it covers. */
export function stylesIn(spec: TextSpec, start: number, end: number): StyledRange[] {
  const out: StyledRange[] = [];
  let at = 0;
  for (const { length, ...style } of runList(spec)) {
    const from = Math.max(at, start);
    const to = Math.min(at + length, end);
    if (to > from) out.push({ start: from, end: to, style });
    at += length;
    if (at >= end) break;
  }
  return out;
}

/** The style of the character at `offset` (the last one's past the end). */
export function styleAt(spec: TextSpec, offset: number): CharacterStyle {
  const list = runList(spec);
  let at = 0;
  for (const { length, ...style } of list) {
    at += length;
    if (offset < at) return style;
  }
  const { length: _l, ...last } = list.at(-1)!;
  return last;
}

/** `runs` cut at `offset` (a run across it becomes two), so a range can be restyled on its own. */
function cutAt(runs: readonly TextRun[], offset: number): TextRun[] {
  const out: TextRun[] = [];
  let at = 0;
  for (const r of runs) {
    if (offset > at && offset < at + r.length) {
      out.push({ ...r, length: offset - at }, { ...r, length: at + r.length - offset });
    } else {
      out.push(r);
    }
    at += r.length;
  }
  return out;
}

/**
 * A change of characters' style: a font, size or colour given replaces theirs; a faux style true sets it, false
 * clears it; a character setting given replaces theirs (text-character.ts).
 */
export type StyleChange = Partial<Pick<CharacterStyle, 'font' | 'size' | 'color'>> &
  Partial<Record<FauxKey, boolean>> &
  SettingsChange;

/**
 * `spec` with the characters `[start, end)` (all of them by default) changed by `change`, the rest as they were.
 */
export function restyle(spec: TextSpec, change: StyleChange, start = 0, end = spec.content.length): TextSpec {
  const { fauxBold, fauxItalic, underline, strikethrough, font, size, color, ...settings } = change;
  const faux = { fauxBold, fauxItalic, underline, strikethrough };
  const plain = definedOf({ font, size, color });
  let at = 0;
  const runs = cutAt(cutAt(runList(spec), start), end).map((r) => {
    const inside = at >= start && at + r.length <= end;
    at += r.length;
    return inside ? withSettings(withFaux({ ...r, ...plain }, faux), settings) : r;
  });
  return withRuns(spec, runs);
}

/** `o` without its undefined fields (a change that does not give them leaves them). */
function definedOf<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** Above this many characters changed, the words are taken as replaced where they differ at both ends. */
const MAX_DIFF_EDITS = 2000;

/**
 * `spec` with its content replaced by `content`: the characters it keeps (a character diff of the two) in their
 * styles, and the new ones in the style Photoshop's type tool gives them: the first replaced character's, or,
 * where nothing is replaced, the one's before them (after them at the very start).
 */
export function withContent(spec: TextSpec, content: string): TextSpec {
  if (!hasRuns(spec)) return { ...spec, content };
  const old = spec.content;
  // Too many changes to trace: the same start and end kept, everything between replaced.
  const changes = diffChars(old, content, { maxEditLength: MAX_DIFF_EDITS }) ?? edgesOf(old, content);
  const runs: TextRun[] = [];
  const keep = (from: number, to: number) => {
    for (const s of stylesIn(spec, from, to)) runs.push({ ...s.style, length: s.end - s.start });
  };
  let at = 0;
  let removedAt = -1;
  for (const change of changes) {
    const n = change.value.length;
    if (change.removed) {
      if (removedAt < 0) removedAt = at;
      at += n;
    } else if (change.added) {
      const from = removedAt >= 0 ? removedAt : Math.max(0, at - 1);
      runs.push({ ...styleAt(spec, from), length: n });
    } else {
      keep(at, at + n);
      at += n;
      removedAt = -1;
    }
  }
  return withRuns({ ...spec, content }, runs);
}

/** The changes from `old` to `next` as one replacement between their common start and end. */
function edgesOf(old: string, next: string): { value: string; added?: boolean; removed?: boolean }[] {
  const most = Math.min(old.length, next.length);
  let head = 0;
  while (head < most && old.charCodeAt(head) === next.charCodeAt(head)) head++;
  let tail = 0;
  while (
    tail < most - head &&
    old.charCodeAt(old.length - 1 - tail) === next.charCodeAt(next.length - 1 - tail)
  ) {
    tail++;
  }
  return [
    { value: old.slice(0, head) },
    { value: old.slice(head, old.length - tail), removed: true },
    { value: next.slice(head, next.length - tail), added: true },
    { value: old.slice(old.length - tail) },
  ];
}

/** Whether two specs style their characters alike. */
export function sameRuns(a: TextSpec, b: TextSpec): boolean {
  const p = runList(a);
  const q = runList(b);
  return p.length === q.length && p.every((r, i) => r.length === q[i]!.length && sameStyle(r, q[i]!));
}

/** Every distinct style of `spec`'s characters (one where it has no runs). */
export function stylesOf(spec: TextSpec): CharacterStyle[] {
  const out: CharacterStyle[] = [];
  for (const { length: _l, ...style } of runList(spec)) {
    if (!out.some((s) => sameStyle(s, style))) out.push(style);
  }
  return out;
}

/** `spec` with every character's colour mapped by `f` (a change of colour mode). */
export function recoloured(spec: TextSpec, f: (c: RGB) => RGB): TextSpec {
  return {
    ...spec,
    color: f(spec.color),
    ...(spec.runs ? { runs: spec.runs.map((r) => ({ ...r, color: f(r.color) })) } : {}),
  };
}
