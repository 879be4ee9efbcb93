/**
 * The units and paper sizes of a form whose tool takes lengths in pixels and a resolution (新建文档, 调整图像大小),
 * as Photoshop's New Document dialog: the lengths may be typed in millimetres, centimetres, inches or points, a
 * paper fills them in, and the line under them says the size both ways. The form's values stay in pixels.
 */
import { useStudioView } from '../context.js';
import type { FormValue } from '../forms/arguments.js';
import { fromPixels, PAPERS, type Physical, paperPixels, UNITS, type Unit } from '../forms/physical.js';

export function PhysicalSizeBar({
  id,
  physical,
  unit,
  dpi,
  values,
  paper,
  onUnit,
  onPaper,
}: {
  id: string;
  physical: Physical;
  unit: Unit;
  dpi: number;
  values: Readonly<Record<string, FormValue>>;
  /** The paper chosen (`a4:p`), until a length is typed by hand; '' for 自定义. */
  paper: string;
  onUnit(unit: Unit): void;
  onPaper(choice: string, width: number, height: number, mm: readonly [number, number]): void;
}) {
  const { t, lang } = useStudioView();
  const pair = physical.lengths.length === 2;
  const [w, h] = physical.lengths.map((name) => Number(values[name]));
  const shown = unit === 'px' ? 'mm' : unit;
  return (
    <div class="physical-size">
      <div class="physical-size-controls">
        <label for={`${id}-unit`}>{t('form.unit')}</label>
        <select id={`${id}-unit`} value={unit} onChange={(e) => onUnit(e.currentTarget.value as Unit)}>
          {UNITS.map((u) => (
            <option key={u} value={u}>
              {t(`form.unit.${u}`)}
            </option>
          ))}
        </select>
        {pair && (
          <>
            <label for={`${id}-paper`}>{t('form.paper')}</label>
            <select
              id={`${id}-paper`}
              value={paper}
              onChange={(e) => {
                const [paperId, turn] = e.currentTarget.value.split(':');
                const paper = PAPERS.find((p) => p.id === paperId);
                if (!paper) return;
                const landscape = turn === 'l';
                const [pw, ph] = paperPixels(paper, dpi, landscape);
                onPaper(e.currentTarget.value, pw, ph, landscape ? [paper.mm[1], paper.mm[0]] : paper.mm);
              }}
            >
              <option value="">{t('form.paperCustom')}</option>
              {PAPERS.flatMap((p) => {
                const paper = lang === 'zh' ? p.zh : p.en;
                return [
                  <option key={`${p.id}:p`} value={`${p.id}:p`}>
                    {t('form.portrait', { paper })}
                  </option>,
                  <option key={`${p.id}:l`} value={`${p.id}:l`}>
                    {t('form.landscape', { paper })}
                  </option>,
                ];
              })}
            </select>
          </>
        )}
      </div>
      {pair && w! > 0 && h! > 0 && (
        <p class="physical-size-line" aria-live="polite">
          {t('form.physicalSize', {
            w: String(w),
            h: String(h),
            pw: String(fromPixels(w!, dpi, shown)),
            ph: String(fromPixels(h!, dpi, shown)),
            unit: t(`form.unit.${shown}`),
            dpi: String(dpi),
          })}
        </p>
      )}
    </div>
  );
}
