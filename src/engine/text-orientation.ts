/**
 * Which way a text layer runs (TextSpec's `orientation`): the one thing the rest of the text code must ask, where
 * its anchor lies from its `x, y`. Horizontal text's anchor is its first baseline's start, TEXT_BASELINE_EM below
 * `y`; vertical text's is `x, y` itself, the top of its first column on the column's centre line, where
 * Photoshop's vertical type tool puts the point clicked.
 */
import { TEXT_BASELINE_EM } from '../registry/tools/text-params.js';
import type { TextSpec } from './model.js';

export function isVertical(spec: Pick<TextSpec, 'orientation'>): boolean {
  return spec.orientation === 'vertical';
}

/** How far below `y` the anchor lies for text of first size `size` (the spec's own by default). */
export function anchorDrop(spec: Pick<TextSpec, 'orientation' | 'size'>, size = spec.size): number {
  return isVertical(spec) ? 0 : TEXT_BASELINE_EM * size;
}
