/**
 * Photoshop's options bar for its Brush tool: size, hardness, opacity and flow (their ranges the registry's, from
 * paint_stroke's limits), whether a pen's pressure sets the size and the opacity (Photoshop's two pressure
 * switches) and whether it paints the current layer's mask. The colour is the foreground colour.
 */
import { useState } from 'preact/hooks';
import { useStudioView } from '../context.js';
import { PANE_TOOLS } from '../state/pane-tools.js';
import { backToDocument } from './back-to-document.js';
import { MaskToggle } from './MaskToggle.js';
import { OptionCheck } from './OptionCheck.js';
import type { BrushOptions } from './useBrush.js';

type NumberField = 'size' | 'hardness' | 'opacity' | 'flow';

export function BrushOptionsBar({
  options,
  update,
  masked,
}: {
  options: BrushOptions;
  update: (change: Partial<BrushOptions>) => void;
  /** Whether the current layer has a mask the brush can paint. */
  masked: boolean;
}) {
  const { studio, t } = useStudioView();
  const limits = studio.tools.get(PANE_TOOLS.brush)?.limits;
  // What is being typed in a field, until Enter or leaving it: the canvas redrawing meanwhile must not reset it.
  const [drafts, setDrafts] = useState<Partial<Record<NumberField, string>>>({});
  const field = (key: NumberField, unit: string) => {
    const range = limits?.[key];
    const commit = (el: HTMLInputElement) => {
      setDrafts(({ [key]: _done, ...rest }) => rest);
      const v = Number(el.value);
      if (el.value.trim() === '' || !Number.isFinite(v)) return;
      update({ [key]: Math.min(range?.max ?? v, Math.max(range?.min ?? v, Math.round(v))) });
    };
    return (
      <label>
        {t(`canvas.brush.${key}`)}
        <input
          type="number"
          class={`brush-${key}`}
          min={range?.min}
          max={range?.max}
          value={drafts[key] ?? options[key]}
          onInput={(e) => {
            const v = (e.currentTarget as HTMLInputElement).value;
            setDrafts((d) => ({ ...d, [key]: v }));
          }}
          onChange={(e) => commit(e.currentTarget as HTMLInputElement)}
          onKeyDown={(e) => {
            if (e.key !== 'Enter') return;
            commit(e.currentTarget as HTMLInputElement);
            backToDocument(e.currentTarget as HTMLInputElement);
          }}
        />
        {unit}
      </label>
    );
  };
  return (
    <fieldset
      class="tool-options brush-options"
      aria-label={t('canvas.brushOptions')}
      onPointerDown={(e) => e.stopPropagation()}
    >
      {field('size', 'px')}
      {field('hardness', '%')}
      {field('opacity', '%')}
      {field('flow', '%')}
      <OptionCheck
        words="canvas.brush.pressureSize"
        class="brush-pressure"
        checked={options.pressureSize}
        onChange={(pressureSize) => update({ pressureSize })}
      />
      <OptionCheck
        words="canvas.brush.pressureOpacity"
        class="brush-pressure-opacity"
        checked={options.pressureOpacity}
        onChange={(pressureOpacity) => update({ pressureOpacity })}
      />
      <MaskToggle masked={masked} checked={options.onMask} onChange={(onMask) => update({ onMask })} />
    </fieldset>
  );
}
