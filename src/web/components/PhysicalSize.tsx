/**
 * The units and paper sizes of a form whose tool takes lengths in pixels and a resolution (新建文档, 调整图像大小),
 * as Photoshop's New Document dialog: the lengths may be typed in millimetres, centimetres, inches or points, a
 * paper fills them in, and the line under them says the size both ways. The form's values stay in pixels.
 */
import { useState } from 'preact/hooks';
import type { RegistryTool } from '../api/types.js';
import { useStudioView } from '../context.js';
import type { FormValue } from '../forms/arguments.js';
import {
  fromPixels,
  PAPERS,
  type Physical,
  paperPixels,
  physicalOf,
  toPixels,
  UNITS,
  type Unit,
} from '../forms/physical.js';

type Values = Record<string, FormValue>;
type Update<T> = (next: (old: T) => T) => void;

/**
 * A form's lengths in the unit chosen: what was typed is shown as typed, while the form's values (what is sent)
 * stay whole pixels. `bar` is null for a tool without lengths in pixels and a resolution.
 */
export function usePhysicalSize(
  tool: RegistryTool,
  values: Readonly<Values>,
  setValues: Update<Values>,
  setBlank: Update<readonly string[]>,
  documentResolution: number | undefined,
) {
  const { t } = useStudioView();
  const physical = physicalOf(tool.limits, Object.keys(tool.parameters.properties));
  const [unit, setUnit] = useState<Unit>('px');
  const [typed, setTyped] = useState<Readonly<Record<string, string>>>({});
  const [paper, setPaper] = useState('');
  const stated = physical ? Number(values[physical.dpi]) : Number.NaN;
  const dpi = stated > 0 ? stated : (documentResolution ?? 72);
  const isLength = (name: string) => unit !== 'px' && !!physical?.lengths.includes(name);

  const shownValue = (name: string): FormValue => {
    const v = values[name] ?? '';
    if (!isLength(name)) return v;
    if (typed[name] !== undefined) return typed[name]!;
    const px = Number(v);
    return typeof v === 'string' && v.trim() !== '' && Number.isFinite(px)
      ? String(fromPixels(px, dpi, unit))
      : v;
  };

  const change = (name: string, v: FormValue) => {
    if (physical?.lengths.includes(name)) setPaper('');
    if (isLength(name) && typeof v === 'string') {
      setTyped((old) => ({ ...old, [name]: v }));
      const n = Number(v);
      const px = v.trim() !== '' && Number.isFinite(n) && n > 0 ? String(toPixels(n, dpi, unit)) : v;
      setValues((old) => ({ ...old, [name]: px }));
      return;
    }
    const next = Number(v);
    if (physical && name === physical.dpi && unit !== 'px' && next > 0) {
      // As Photoshop's dialog: a new resolution keeps the size on paper and changes the pixels.
      setValues((old) => {
        const out: Values = { ...old, [name]: v };
        for (const length of physical.lengths) {
          const size =
            typed[length] !== undefined ? Number(typed[length]) : fromPixels(Number(old[length]), dpi, unit);
          if (size > 0) out[length] = String(toPixels(size, next, unit));
        }
        return out;
      });
      return;
    }
    setValues((old) => ({ ...old, [name]: v }));
  };

  const noteOf = (name: string): { note?: string } =>
    isLength(name) ? { note: t('form.inUnit', { unit: t(`form.unit.${unit}`) }) } : {};

  const bar = physical && (
    <PhysicalSizeBar
      id={`physical-${tool.name}`}
      physical={physical}
      unit={unit}
      dpi={dpi}
      values={values}
      paper={paper}
      onUnit={(u) => {
        setUnit(u);
        setTyped({});
      }}
      onPaper={(choice, w, h, mm) => {
        const [wName, hName] = physical.lengths as [string, string];
        // A paper is typed in millimetres unless another unit than pixels was chosen.
        const inUnit = unit === 'px' ? 'mm' : unit;
        setPaper(choice);
        setUnit(inUnit);
        setTyped(
          inUnit === 'mm'
            ? { [wName]: String(mm[0]), [hName]: String(mm[1]) }
            : { [wName]: String(fromPixels(w, dpi, inUnit)), [hName]: String(fromPixels(h, dpi, inUnit)) },
        );
        setBlank((old) => old.filter((n) => n !== wName && n !== hName));
        setValues((old) => ({ ...old, [wName]: String(w), [hName]: String(h) }));
      }}
    />
  );
  return { bar, shownValue, change, noteOf };
}

function PhysicalSizeBar({
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
