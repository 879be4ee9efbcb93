/**
 * Photoshop's options bar for its Gradient tool: the gradient (from the foreground colour to an end colour, or to
 * transparent, through a middle colour when one is chosen: a colour stop at 50 %), shown as a swatch, its shape,
 * whether it is reversed and dithered (Photoshop's Reverse and Dither), and whether it goes on the current layer's
 * mask (Photoshop paints the mask when its thumbnail is chosen). The shapes are the registry's (fill_gradient's
 * `type`).
 */
import { GRADIENT_TYPES } from '../../registry/tools/paint-params.js';
import { useStudioView } from '../context.js';
import { backToDocument } from './back-to-document.js';
import { MaskToggle } from './MaskToggle.js';
import { OptionCheck } from './OptionCheck.js';
import { type GradientOptions, gradientEnds } from './useGradient.js';

export function GradientOptionsBar({
  start,
  options,
  update,
  masked,
}: {
  /** The start colour: the foreground colour. */
  start: string;
  /** Whether the current layer has a mask the gradient can be laid on. */
  masked: boolean;
  options: GradientOptions;
  update: (change: Partial<GradientOptions>) => void;
}) {
  const { t } = useStudioView();
  const [first, last] = gradientEnds(start, options).map((e) => (e.opacity === 0 ? `${e.color}00` : e.color));
  const colours = [first, ...(options.throughMiddle ? [options.middle] : []), last].join(', ');
  return (
    <fieldset
      class="tool-options gradient-options"
      aria-label={t('canvas.gradientOptions')}
      onPointerDown={(e) => e.stopPropagation()}
    >
      <span
        class="gradient-swatch"
        role="img"
        aria-label={t('canvas.gradientSwatch')}
        // Over a checkerboard, as Photoshop's swatch shows transparency.
        style={{
          background: `linear-gradient(to right, ${colours}), repeating-conic-gradient(#d0d0d0 0% 25%, #fff 0% 50%) 0 0 / 8px 8px`,
        }}
      />
      <label>
        {t('canvas.gradientEnd')}
        <input
          type="color"
          class="gradient-end"
          value={options.end}
          disabled={options.toTransparent}
          onInput={(e) => update({ end: (e.currentTarget as HTMLInputElement).value })}
          onChange={(e) => backToDocument(e.currentTarget as HTMLInputElement)}
        />
      </label>
      <OptionCheck
        words="canvas.gradientTransparent"
        checked={options.toTransparent}
        onChange={(toTransparent) => update({ toTransparent })}
      />
      <OptionCheck
        words="canvas.gradientMiddle"
        class="gradient-middle-on"
        checked={options.throughMiddle}
        onChange={(throughMiddle) => update({ throughMiddle })}
      />
      <input
        type="color"
        class="gradient-middle"
        aria-label={t('canvas.gradientMiddle')}
        value={options.middle}
        disabled={!options.throughMiddle}
        onInput={(e) => update({ middle: (e.currentTarget as HTMLInputElement).value })}
        onChange={(e) => backToDocument(e.currentTarget as HTMLInputElement)}
      />
      <OptionCheck
        words="canvas.gradientReverse"
        class="gradient-reverse"
        checked={options.reverse}
        onChange={(reverse) => update({ reverse })}
      />
      <OptionCheck
        words="canvas.gradientDither"
        class="gradient-dither"
        checked={options.dither}
        onChange={(dither) => update({ dither })}
      />
      <MaskToggle masked={masked} checked={options.onMask} onChange={(onMask) => update({ onMask })} />
      <label>
        {t('canvas.gradientType')}
        <select
          value={options.type}
          onChange={(e) => {
            const el = e.currentTarget as HTMLSelectElement;
            update({ type: el.value as GradientOptions['type'] });
            backToDocument(el);
          }}
        >
          {GRADIENT_TYPES.map((type) => (
            <option key={type} value={type}>
              {t(`canvas.gradient.${type}`)}
            </option>
          ))}
        </select>
      </label>
    </fieldset>
  );
}
