/**
 * A colour parameter's value as the document holds it. Validation has normalised it to `#rrggbb`, or to press inks
 * `cmyk(c,m,y,k)` in percent where the parameter takes them (registry `limits.inks`): a print designer's K-only
 * black, which no hex colour separates to. One wording of what happened to it for every tool that paints.
 */
import { type Cmyk, documentColor, inkColor } from '../engine/color-mode.js';
import type { DocState, RGB } from '../engine/model.js';
import { pressProfile } from '../engine/press-profile.js';
import { hexToRgb, rgbToHex } from '../engine/raster.js';
import type { Payload } from './types.js';

export interface HeldColor {
  readonly color: RGB;
  readonly hex: string;
  /** The inks asked for, when the value was `cmyk(…)`. */
  readonly inks?: Cmyk;
  /** What became of the value, when the colour held is not simply the one asked for. */
  readonly note?: string;
}

/** The inks of a normalised `cmyk(c,m,y,k)` value, or undefined for a hex colour. */
export function inksAsked(value: string): Cmyk | undefined {
  if (!value.startsWith('cmyk(')) return undefined;
  const [c, m, y, k] = value.slice(5, -1).split(',').map(Number) as [number, number, number, number];
  return { c, m, y, k };
}

const inkText = ({ c, m, y, k }: Cmyk) => `C${c} M${m} Y${y} K${k}`;

export async function heldColor(state: DocState, asked: string): Promise<HeldColor> {
  const inks = inksAsked(asked);
  if (inks) {
    const color = await inkColor(state, inks);
    const hex = rgbToHex(color);
    const note =
      state.mode === 'cmyk'
        ? `油墨 ${inkText(inks)}：保存的 PSD 和导出的 JPEG、TIFF 中按此油墨写入，屏幕上显示为 ${hex}`
        : `RGB 文档：油墨 ${inkText(inks)} 已按 CMYK 印刷配置文件“${pressProfile().name}”换算为 ${hex}（转换为 CMYK 时重新分色）`;
    return { color, hex, inks, note };
  }
  const color = await documentColor(state, hexToRgb(asked));
  const hex = rgbToHex(color);
  return {
    color,
    hex,
    ...(hex !== asked ? { note: `CMYK 文档：颜色 ${asked} 已转换为可印刷的 ${hex}` } : {}),
  };
}

/** The colour held, with what became of it as a layer tool's result fields (`color_note`, `inks`). */
export async function heldColorFields(
  state: DocState,
  asked: string,
): Promise<{ color: RGB; note: Payload }> {
  const held = await heldColor(state, asked);
  return {
    color: held.color,
    note: { ...(held.note ? { color_note: held.note } : {}), ...(held.inks ? { inks: held.inks } : {}) },
  };
}
