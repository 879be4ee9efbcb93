/**
 * A text's spacing (the `leading` and `tracking` of its characters, model.ts), as Photoshop's character panel sets
 * it:
 *
 * - **Leading**: the distance from one baseline to the next, in the units of the font size; auto leading (absent)
 *   is 120 % of the size (text.ts LINE_HEIGHT_EM). As in Photoshop, a fixed leading stays as it is when the size
 *   changes.
 * - **Tracking**: space added after every character, in thousandths of an em, so it grows with the size; after a
 *   line's last character too, as Photoshop counts it (centred tracked text stands a little left of its centre).
 *   Chinese headlines are often set wide (200–400) or tight.
 *
 * Both are set per character (text-character.ts): a line's leading is the largest of its characters', and each
 * character's tracking is in ems of its own size. set_text_spacing sets them for every character, as the panel
 * does with the whole layer chosen. Every engine path copies a spec by spreading it.
 */
import type { CharacterSettings, TextSpec } from './model.js';
import { isLeading, isTracking } from './text-character.js';
import {
  isTextIndent,
  isTextSpace,
  type ParagraphSettings,
  paragraphList,
  withParagraphs,
} from './text-paragraph.js';
import { restyle } from './text-runs.js';

export interface TextSpacing {
  readonly leading?: number;
  readonly tracking?: number;
}

/** The spacing `spec` carries (none: auto leading, no tracking): a text's own is its first character's. */
export function spacingOf(spec: CharacterSettings): TextSpacing {
  return {
    ...(isLeading(spec.leading) ? { leading: spec.leading } : {}),
    ...(isTracking(spec.tracking) ? { tracking: spec.tracking } : {}),
  };
}

/**
 * Pixels from the baseline before to the baseline of a line of characters set like `style` at `size`, given auto
 * leading's share of the size; a line of several takes the largest (text.ts).
 */
export function lineStep(
  style: CharacterSettings & { size: number },
  autoEm: number,
  size = style.size,
): number {
  return spacingOf(style).leading ?? autoEm * size;
}

/**
 * Pixels added after every character set like `style` at `size` (tracking is in ems of each character's size),
 * before its transform: CSS and canvas `letter-spacing`.
 */
export function letterSpacing(style: CharacterSettings & { size: number }, size = style.size): number {
  return ((spacingOf(style).tracking ?? 0) / 1000) * size;
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
 * space all 0 go. A leading or tracking given sets every character's, and indents and space given apply to every
 * paragraph, as Photoshop's panels with the whole layer chosen: each paragraph keeps what is not given of its own.
 */
export function withSpacing(spec: TextSpec, change: SpacingChange): TextSpec {
  const { leading, tracking } = change;
  const spaced = restyle(spec, {
    ...(leading !== undefined ? { leading } : {}),
    ...(tracking !== undefined ? { tracking } : {}),
  });
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
