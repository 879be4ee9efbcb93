/**
 * A text layer's spacing (TextSpec's `leading` and `tracking`, model.ts), as Photoshop's character panel sets it:
 *
 * - **Leading**: the distance from one baseline to the next, in the units of the font size; auto leading (absent)
 *   is 120 % of the size (text.ts LINE_HEIGHT_EM). As in Photoshop, a fixed leading stays as it is when the size
 *   changes.
 * - **Tracking**: space added after every character, in thousandths of an em, so it grows with the size; after a
 *   line's last character too, as Photoshop counts it (centred tracked text stands a little left of its centre).
 *   Chinese headlines are often set wide (200–400) or tight.
 *
 * A file whose characters share one leading and one tracking keeps them through edits (psd.ts); one that mixes
 * them keeps its own record until the text is edited. Every engine path copies a spec by spreading it.
 */
import { MAX_LEADING, TRACKING_MAX, TRACKING_MIN } from '../registry/tools/text-params.js';
import type { TextSpec } from './model.js';
import {
  isTextIndent,
  isTextSpace,
  type ParagraphSettings,
  paragraphList,
  withParagraphs,
} from './text-paragraph.js';

export interface TextSpacing {
  readonly leading?: number;
  readonly tracking?: number;
}

/** Whether `v` is a leading text can be set with: positive, finite, within Photoshop's range. */
export function isLeading(v: unknown): v is number {
  return typeof v === 'number' && Number.isFinite(v) && v > 0 && v <= MAX_LEADING;
}

/** Whether `v` is a tracking Photoshop accepts (a non-zero one: zero is no tracking). */
export function isTracking(v: unknown): v is number {
  return typeof v === 'number' && Number.isFinite(v) && v !== 0 && v >= TRACKING_MIN && v <= TRACKING_MAX;
}

/** The spacing `spec` carries (none: auto leading, no tracking). */
export function spacingOf(spec: TextSpec): TextSpacing {
  return {
    ...(isLeading(spec.leading) ? { leading: spec.leading } : {}),
    ...(isTracking(spec.tracking) ? { tracking: spec.tracking } : {}),
  };
}

/** Whether two specs carry the same spacing. */
export function sameSpacing(a: TextSpec, b: TextSpec): boolean {
  const p = spacingOf(a);
  const q = spacingOf(b);
  return p.leading === q.leading && p.tracking === q.tracking;
}

/**
 * Pixels between baselines of `spec`'s lines (before its transform), given auto leading's share of the size: of a
 * line whose largest characters are `size` (the text's own size by default), since auto leading follows them.
 */
export function lineStep(spec: TextSpec, autoEm: number, size = spec.size): number {
  return spacingOf(spec).leading ?? autoEm * size;
}

/**
 * Pixels added after every character of `spec` set at `size` (its own size by default; tracking is in ems of each
 * character's size), before its transform: CSS and canvas `letter-spacing`.
 */
export function letterSpacing(spec: TextSpec, size = spec.size): number {
  return ((spacingOf(spec).tracking ?? 0) / 1000) * size;
}

/** What set_text_spacing changes: each field given replaces the spec's (leading 0: auto, tracking 0: none). */
export interface SpacingChange {
  readonly leading?: number;
  readonly tracking?: number;
  readonly indentFirst?: number;
  readonly indentLeft?: number;
  readonly indentRight?: number;
  readonly spaceBefore?: number;
  readonly spaceAfter?: number;
}

/**
 * `spec` with `change` applied: what is not given stays; a leading or tracking of 0, indents all 0 and paragraph
 * space all 0 go. Indents and space given apply to every paragraph, as Photoshop's panel with the whole layer
 * chosen: each paragraph keeps what is not given of its own.
 */
export function withSpacing(spec: TextSpec, change: SpacingChange): TextSpec {
  const { leading: _leading, tracking: _tracking, ...rest } = spec;
  const now = spacingOf(spec);
  const leading = change.leading ?? now.leading ?? 0;
  const tracking = change.tracking ?? now.tracking ?? 0;
  const spaced: TextSpec = {
    ...rest,
    ...(isLeading(leading) ? { leading } : {}),
    ...(isTracking(tracking) ? { tracking } : {}),
  };
  const changed = (p: ParagraphSettings): ParagraphSettings => {
    const { indent: was = { left: 0, first: 0, right: 0 }, space: wasSpace = { before: 0, after: 0 } } = p;
    const indent = {
      left: change.indentLeft ?? was.left,
      first: change.indentFirst ?? was.first,
      right: change.indentRight ?? was.right,
    };
    const space = {
      before: change.spaceBefore ?? wasSpace.before,
      after: change.spaceAfter ?? wasSpace.after,
    };
    const { indent: _indent, space: _space, ...kept } = p;
    return {
      ...kept,
      ...(isTextIndent(indent) ? { indent } : {}),
      ...(isTextSpace(space) ? { space } : {}),
    };
  };
  return withParagraphs(spaced, paragraphList(spaced).map(changed));
}
