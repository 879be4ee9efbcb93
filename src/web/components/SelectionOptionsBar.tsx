/**
 * Photoshop's options bar for its selection tools: the four ways a new selection meets the one there is (new,
 * add, subtract, intersect; Shift and Alt held as a selection starts still override it), the marquee's shape or
 * the lasso's kind, and the magic wand's tolerance, contiguity and sampling.
 */
import { useStudioView } from '../context.js';
import { PANE_TOOLS } from '../state/pane-tools.js';
import { backToDocument } from './back-to-document.js';
import { OptionCheck } from './OptionCheck.js';
import {
  type LassoKind,
  type MarqueeShape,
  SELECTION_MODES,
  type SelectionMode,
  type SelectionOptions,
} from './selection-options.js';
import { ToolIcon } from './ToolIcon.js';

/** Photoshop's pictures of its four selection modes: one square, two joined, one cut by the other, their overlap. */
function ModeIcon({ mode }: { mode: SelectionMode }) {
  const a = 'M2 2h8v8H2z';
  const b = 'M6 6h8v8H6z';
  return (
    <svg viewBox="0 0 16 16" width="16" height="16" aria-hidden="true">
      {mode === 'replace' ? (
        <path d="M3 3h10v10H3z" fill="currentColor" />
      ) : mode === 'add' ? (
        <path d="M2 2h8v4h4v8H6v-4H2z" fill="currentColor" />
      ) : mode === 'subtract' ? (
        <>
          <path d="M2 2h8v4H6v4H2z" fill="currentColor" />
          <path d={b} fill="none" stroke="currentColor" stroke-width="1" />
        </>
      ) : (
        <>
          <path d={a} fill="none" stroke="currentColor" stroke-width="1" />
          <path d={b} fill="none" stroke="currentColor" stroke-width="1" />
          <path d="M6 6h4v4H6z" fill="currentColor" />
        </>
      )}
    </svg>
  );
}

export function SelectionOptionsBar({
  tool,
  options,
  update,
}: {
  tool: 'marquee' | 'lasso' | 'wand';
  options: SelectionOptions;
  update: (change: Partial<SelectionOptions>) => void;
}) {
  const { studio, t } = useStudioView();
  // The wand's bounds and defaults are its registry limits.
  const wand = studio.tools.get(PANE_TOOLS.magicWand);
  const tolerance = wand?.limits.tolerance;
  const choice = <T extends string>(
    label: string,
    values: readonly T[],
    current: T,
    name: (v: T) => string,
    pick: (v: T) => void,
    icon: (v: T) => preact.JSX.Element | string,
  ) => (
    <fieldset class="segmented" aria-label={label}>
      {values.map((v) => (
        <button
          key={v}
          type="button"
          class="icon-button"
          aria-pressed={current === v}
          aria-label={name(v)}
          title={name(v)}
          onClick={() => pick(v)}
        >
          {icon(v)}
        </button>
      ))}
    </fieldset>
  );
  return (
    <fieldset
      class="tool-options selection-options"
      aria-label={t('canvas.selectionOptions')}
      onPointerDown={(e) => e.stopPropagation()}
    >
      {choice(
        t('canvas.selectionMode'),
        SELECTION_MODES,
        options.mode,
        (m) => t(`canvas.selectionMode.${m}`),
        (mode) => update({ mode }),
        (m) => (
          <ModeIcon mode={m} />
        ),
      )}
      {tool === 'marquee' &&
        choice<MarqueeShape>(
          t('canvas.marqueeShape'),
          ['rect', 'ellipse'],
          options.shape,
          (v) => t(`canvas.tool.marquee.${v}`),
          (shape) => update({ shape }),
          (v) => <ToolIcon tool="marquee" options={{ ...options, shape: v }} />,
        )}
      {tool === 'lasso' && (
        <>
          {choice<LassoKind>(
            t('canvas.lassoKind'),
            ['free', 'polygon'],
            options.lasso,
            (v) => t(`canvas.tool.lasso.${v}`),
            (lasso) => update({ lasso }),
            (v) => (
              <ToolIcon tool="lasso" options={{ ...options, lasso: v }} />
            ),
          )}
          <span class="tool-hint">{t(`canvas.lassoHint.${options.lasso}`)}</span>
        </>
      )}
      {tool === 'wand' && (
        <>
          <label>
            {t('canvas.wandTolerance')}
            <input
              type="number"
              min={tolerance?.min}
              max={tolerance?.max}
              step={1}
              value={options.tolerance ?? (tolerance?.default as number | undefined)}
              onChange={(e) => {
                const v = Number((e.currentTarget as HTMLInputElement).value);
                const min = tolerance?.min ?? 0;
                const max = tolerance?.max ?? Number.POSITIVE_INFINITY;
                if (Number.isInteger(v) && v >= min && v <= max) update({ tolerance: v });
              }}
              // As the type bar's fields: Enter (which sends the value) or Esc gives the keys back to the document.
              onKeyDown={(e) => {
                if (e.key !== 'Enter' && e.key !== 'Escape') return;
                const field = e.currentTarget as HTMLInputElement;
                field.blur();
                backToDocument(field);
              }}
            />
          </label>
          <OptionCheck
            words="canvas.wandContiguous"
            checked={options.contiguous ?? wand?.limits.contiguous?.default === true}
            onChange={(contiguous) => update({ contiguous })}
          />
          <OptionCheck
            words="canvas.wandSampleAll"
            checked={options.sampleAll ?? wand?.limits.sample_all_layers?.default === true}
            onChange={(sampleAll) => update({ sampleAll })}
          />
        </>
      )}
    </fieldset>
  );
}
