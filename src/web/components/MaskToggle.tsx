/**
 * The painting tools' 画在蒙版上: paint the current layer's mask instead of its pixels (Photoshop paints the mask
 * when its thumbnail is chosen), offered where the current layer has one.
 */
import { useStudioView } from '../context.js';
import { labelIn } from '../i18n.js';
import { PANE_TOOLS } from '../state/pane-tools.js';

export function MaskToggle({
  masked,
  checked,
  onChange,
}: {
  /** Whether the current layer has a mask to paint. */
  masked: boolean;
  checked: boolean;
  onChange: (checked: boolean) => void;
}) {
  const { studio, t, lang } = useStudioView();
  const addMask = studio.tools.get(PANE_TOOLS.addMask);
  const tool = addMask ? labelIn(addMask, lang) : PANE_TOOLS.addMask;
  return (
    <label title={masked ? undefined : t('canvas.paintNoMask', { tool })}>
      <input
        type="checkbox"
        checked={checked && masked}
        disabled={!masked}
        onChange={(e) => onChange((e.currentTarget as HTMLInputElement).checked)}
      />
      {t('canvas.paintOnMask')}
    </label>
  );
}
