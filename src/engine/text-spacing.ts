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
import type { TextSpec } from './model.js';

/** The largest leading, in ems, and the tracking range Photoshop's panel accepts. */
const MAX_LEADING_EM = 100;
const MIN_TRACKING = -1000;
const MAX_TRACKING = 10000;

export interface TextSpacing {
  readonly leading?: number;
  readonly tracking?: number;
}

/** Whether `v` is a leading text of `size` can be set with: positive, finite, within Photoshop's range. */
export function isLeading(v: unknown, size: number): v is number {
  return typeof v === 'number' && Number.isFinite(v) && v > 0 && v <= MAX_LEADING_EM * Math.max(size, 1);
}

/** Whether `v` is a tracking Photoshop accepts (a non-zero one: zero is no tracking). */
export function isTracking(v: unknown): v is number {
  return typeof v === 'number' && Number.isFinite(v) && v !== 0 && v >= MIN_TRACKING && v <= MAX_TRACKING;
}

/** The spacing `spec` carries (none: auto leading, no tracking). */
export function spacingOf(spec: TextSpec): TextSpacing {
  return {
    ...(isLeading(spec.leading, spec.size) ? { leading: spec.leading } : {}),
    ...(isTracking(spec.tracking) ? { tracking: spec.tracking } : {}),
  };
}

/** Whether two specs carry the same spacing. */
export function sameSpacing(a: TextSpec, b: TextSpec): boolean {
  const p = spacingOf(a);
  const q = spacingOf(b);
  return p.leading === q.leading && p.tracking === q.tracking;
}

/** Pixels between baselines of `spec`'s lines (before its transform), given auto leading's share of the size. */
export function lineStep(spec: TextSpec, autoEm: number): number {
  return spacingOf(spec).leading ?? autoEm * spec.size;
}

/** Pixels added after every character of `spec` (before its transform): CSS and canvas `letter-spacing`. */
export function letterSpacing(spec: TextSpec): number {
  return ((spacingOf(spec).tracking ?? 0) / 1000) * spec.size;
}
