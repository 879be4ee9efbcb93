/**
 * What Photoshop's options bar holds for its selection tools (the marquees, the lassos, the magic wand): how a new
 * selection meets the one there is, which marquee or lasso, and the magic wand's tolerance, contiguity and
 * sampling. Modifier keys held as a selection starts override the bar's mode, as in Photoshop.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { SELECTION_MODES } from '../../registry/tools/selection-params.js';
import type { Studio } from '../state/use-studio.js';
import type { StartKeys } from './useRectDrag.js';

export { SELECTION_MODES };
export type SelectionMode = (typeof SELECTION_MODES)[number];
export type MarqueeShape = 'rect' | 'ellipse';
export type LassoKind = 'free' | 'polygon';

export interface SelectionOptions {
  readonly mode: SelectionMode;
  readonly shape: MarqueeShape;
  readonly lasso: LassoKind;
  /** The magic wand's settings as chosen; null until then: the tool's own defaults (its registry limits). */
  readonly tolerance: number | null;
  readonly contiguous: boolean | null;
  readonly sampleAll: boolean | null;
}

/** Photoshop's defaults. */
export const DEFAULT_SELECTION_OPTIONS: SelectionOptions = {
  mode: 'replace',
  shape: 'rect',
  lasso: 'free',
  tolerance: null,
  contiguous: null,
  sampleAll: null,
};

/** The magic wand's arguments the options bar has chosen (the tool's defaults stand for the rest). */
export function wandArguments(o: SelectionOptions): Record<string, unknown> {
  return {
    ...(o.tolerance === null ? {} : { tolerance: o.tolerance }),
    ...(o.contiguous === null ? {} : { contiguous: o.contiguous }),
    ...(o.sampleAll === null ? {} : { sample_all_layers: o.sampleAll }),
  };
}

/** Shift adds, Alt subtracts, both intersect; with neither, the options bar's mode. */
export function modeOf(keys: StartKeys, base: SelectionMode): SelectionMode {
  if (keys.shift && keys.alt) return 'intersect';
  if (keys.shift) return 'add';
  return keys.alt ? 'subtract' : base;
}

/** The `mode` argument of a selection call: left out for a replace, the registry's default. */
export const modeArgument = (mode: SelectionMode) => (mode === 'replace' ? {} : { mode });

export function useSelectionOptions() {
  const [options, setOptions] = useState(DEFAULT_SELECTION_OPTIONS);
  return {
    options,
    update: (change: Partial<SelectionOptions>) => setOptions((o) => ({ ...o, ...change })),
  };
}

/** How long a drawn selection may wait for the selection to arrive before it goes anyway (ms). */
const SETTLE_MAX_MS = 2000;

/**
 * A selection drawn on the canvas stays drawn until the canvas's selection is the one asked for (its outline
 * changes), the call fails or a while has passed, so the ants do not blink while the call is on its way.
 * `drop` removes the drawing.
 */
export function useSettling(outline: string, drop: () => void) {
  const timer = useRef<number | null>(null);
  const stop = () => {
    if (timer.current !== null) window.clearTimeout(timer.current);
    timer.current = null;
  };
  useEffect(() => {
    if (timer.current === null) return;
    stop();
    drop();
  }, [outline]);
  useEffect(() => stop, []);
  return {
    stop,
    send(studio: Studio, call: { name: string; arguments: Record<string, unknown> }) {
      stop();
      timer.current = window.setTimeout(() => {
        timer.current = null;
        drop();
      }, SETTLE_MAX_MS);
      void studio.run([call]).then((ok) => {
        if (ok) return;
        stop();
        drop();
      });
    },
  };
}
