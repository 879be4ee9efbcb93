/**
 * The rest of Photoshop's character panel (CharacterSettings, model.ts), set per character as the font, size and
 * colour are (text-runs.ts), and drawn as Photoshop synthesises them for a font without its own forms:
 *
 * - **Leading** and **tracking** (text-spacing.ts): a line's leading is the largest of its characters' (auto
 *   leading counting as 120 % of the character's size), and tracking follows each character.
 * - **Kerning** (字偶间距, Photoshop's manual kerning): set between two characters and stored on the second, it is
 *   space before that character (Photoshop's rendering of a kerned line bears it out, letter for letter:
 *   text-photoshop.test.ts), in thousandths of an em of the character before it (psd2svg's reading of Photoshop's
 *   files where the two sizes differ; no such rendering was at hand to check); unscaled, as tracking.
 * - **Tsume** (比例间距): the blank between each glyph's ink and its advance (its cell's top and bottom in a column)
 *   trimmed by the share on both sides, the glyph unchanged: CJK punctuation set tight. Photoshop's renderings of
 *   Latin agree within 1.5 px a letter up to a space, which Photoshop trims a little too (text-photoshop.test.ts).
 * - **Baseline shift** (基线偏移): the characters drawn that many pixels above their line's baseline (below when
 *   negative); the line itself does not move.
 * - **Horizontal and vertical scale** (水平缩放, 垂直缩放): the glyphs stretched about their baseline's start, the
 *   advance with their width; tracking stays in ems of the size, unscaled, as the panel states it.
 * - **All caps** (全部大写) draws letters as capitals; **small caps** (小型大写) draws lowercase letters as capitals at
 *   SMALL_CAP_SIZE of the size. The words themselves keep their case (only the drawing changes, as in Photoshop).
 * - **Superscript** and **subscript** (上标, 下标): the characters at SUPERSCRIPT_SIZE of the size, raised or lowered
 *   by SUPERSCRIPT_POSITION of it. These figures are the text engine's own document defaults (text-params.ts).
 * The line's height follows the characters' own size, not their drawn one, as auto leading does in Photoshop.
 * Vertical text draws them in its line's frame, a line turned a quarter clockwise (text-vertical.ts), and there
 * **upright Latin** (Photoshop's Standard Vertical Roman Alignment off: BaselineDirection 1 in a PSD's vertical
 * text) stands half-width characters upright, an em each, as Photoshop's rendering shows (text-photoshop.test.ts).
 */
import {
  KERNING_MAX,
  KERNING_MIN,
  MAX_BASELINE_SHIFT,
  MAX_LEADING,
  SCALE_MAX_PERCENT,
  SCALE_MIN_PERCENT,
  SETTING_PARAMS,
  SMALL_CAP_SIZE,
  SUBSCRIPT_POSITION,
  SUBSCRIPT_SIZE,
  SUPERSCRIPT_POSITION,
  SUPERSCRIPT_SIZE,
  type TEXT_CAPS,
  type TEXT_POSITIONS,
  TRACKING_MAX,
  TRACKING_MIN,
} from '../registry/tools/text-params.js';
import type { CharacterSettings } from './model.js';

export { SMALL_CAP_SIZE, SUBSCRIPT_POSITION, SUBSCRIPT_SIZE, SUPERSCRIPT_POSITION, SUPERSCRIPT_SIZE };

export const SETTING_KEYS = [
  'leading',
  'tracking',
  'kerning',
  'baselineShift',
  'horizontalScale',
  'verticalScale',
  'caps',
  'position',
  'upright',
  'tsume',
] as const;
export type SettingKey = (typeof SETTING_KEYS)[number];

/** Whether `v` is a leading text can be set with: positive, finite, within Photoshop's range. */
export function isLeading(v: unknown): v is number {
  return typeof v === 'number' && Number.isFinite(v) && v > 0 && v <= MAX_LEADING;
}

/** Whether `v` is a tracking Photoshop accepts (a non-zero one: zero is no tracking). */
export function isTracking(v: unknown): v is number {
  return typeof v === 'number' && Number.isFinite(v) && v !== 0 && v >= TRACKING_MIN && v <= TRACKING_MAX;
}

/** Whether `v` is a manual kerning Photoshop accepts (a non-zero one: zero is none). */
export function isKerning(v: unknown): v is number {
  return typeof v === 'number' && Number.isFinite(v) && v !== 0 && v >= KERNING_MIN && v <= KERNING_MAX;
}

/** Whether `v` is a scale the character panel takes (1 % to 1000 %), as a fraction. */
export function isGlyphScale(v: unknown): v is number {
  return (
    typeof v === 'number' &&
    Number.isFinite(v) &&
    v >= SCALE_MIN_PERCENT / 100 &&
    v <= SCALE_MAX_PERCENT / 100
  );
}

/** Whether `v` is a baseline shift text can be set with (zero is none). */
export function isBaselineShift(v: unknown): v is number {
  return typeof v === 'number' && Number.isFinite(v) && v !== 0 && Math.abs(v) <= MAX_BASELINE_SHIFT;
}

/** The settings `s` has away from their defaults (a value that is a default, or out of range, is left out). */
export function settingsOf(s: { readonly [K in SettingKey]?: unknown }): CharacterSettings {
  const {
    leading,
    tracking,
    kerning,
    baselineShift,
    horizontalScale,
    verticalScale,
    caps,
    position,
    upright,
    tsume,
  } = s;
  return {
    ...(isLeading(leading) ? { leading } : {}),
    ...(isTracking(tracking) ? { tracking } : {}),
    ...(isKerning(kerning) ? { kerning } : {}),
    ...(isBaselineShift(baselineShift) ? { baselineShift } : {}),
    ...(isGlyphScale(horizontalScale) && horizontalScale !== 1 ? { horizontalScale } : {}),
    ...(isGlyphScale(verticalScale) && verticalScale !== 1 ? { verticalScale } : {}),
    ...(caps === 'all' || caps === 'small' ? { caps } : {}),
    ...(position === 'superscript' || position === 'subscript' ? { position } : {}),
    ...(upright === true ? { upright } : {}),
    ...(isTsume(tsume) ? { tsume } : {}),
  };
}

/** Whether `v` is a tsume (a share of the space beside glyphs, above 0 and at most all of it). */
export function isTsume(v: unknown): v is number {
  return typeof v === 'number' && Number.isFinite(v) && v > 0 && v <= 1;
}

export function sameSettings(a: CharacterSettings, b: CharacterSettings): boolean {
  const p = settingsOf(a);
  const q = settingsOf(b);
  return SETTING_KEYS.every((k) => p[k] === q[k]);
}

/** `s` without any character setting. */
export function withoutSettings<T extends CharacterSettings>(s: T): Omit<T, SettingKey> {
  const out = { ...s } as Record<string, unknown>;
  for (const k of SETTING_KEYS) delete out[k];
  return out as Omit<T, SettingKey>;
}

/**
 * A change of characters' settings: each given replaces theirs, its default (leading 0, tracking 0, shift 0,
 * scale 1, caps or position `none`) clearing it.
 */
export type SettingsChange = {
  readonly [K in Exclude<SettingKey, 'caps' | 'position' | 'upright'>]?: number;
} & {
  readonly caps?: 'all' | 'small' | 'none';
  readonly position?: 'superscript' | 'subscript' | 'none';
  readonly upright?: boolean;
};

/** `s` with `change` applied: its other fields kept, its settings those of `change` over its own. */
export function withSettings<T extends CharacterSettings>(s: T, change: SettingsChange): T {
  const given = Object.fromEntries(Object.entries(change).filter(([, v]) => v !== undefined));
  return { ...withoutSettings(s), ...settingsOf({ ...settingsOf(s), ...given }) } as T;
}

/** The settings every one of `list` shares, each absent where they differ. */
export function sharedSettings(list: readonly CharacterSettings[]): CharacterSettings {
  const first = settingsOf(list[0] ?? {});
  const out: Record<string, unknown> = {};
  for (const k of SETTING_KEYS) {
    if (first[k] !== undefined && list.every((s) => settingsOf(s)[k] === first[k])) out[k] = first[k];
  }
  return out as CharacterSettings;
}

/**
 * How a stretch of characters in `s` is drawn at `size`: the glyphs' size, how far their baseline is raised (px,
 * up positive), their scales, and whether they are drawn as capitals. Small caps' lowercase letters are drawn by
 * `glyphsOf(s, size, true)`.
 */
export interface GlyphForm {
  readonly size: number;
  readonly rise: number;
  readonly scaleX: number;
  readonly scaleY: number;
  readonly upper: boolean;
  /** In a column, half-width characters upright (CharacterSettings' `upright`). */
  readonly upright: boolean;
}

export function glyphsOf(s: CharacterSettings, size: number, smallLetters = false): GlyphForm {
  const {
    baselineShift = 0,
    horizontalScale = 1,
    verticalScale = 1,
    caps,
    position,
    upright,
  } = settingsOf(s);
  const positioned =
    position === 'superscript'
      ? { k: SUPERSCRIPT_SIZE, rise: SUPERSCRIPT_POSITION * size }
      : position === 'subscript'
        ? { k: SUBSCRIPT_SIZE, rise: -SUBSCRIPT_POSITION * size }
        : { k: 1, rise: 0 };
  const small = caps === 'small' && smallLetters ? SMALL_CAP_SIZE : 1;
  return {
    size: size * positioned.k * small,
    rise: positioned.rise + baselineShift,
    scaleX: horizontalScale,
    scaleY: verticalScale,
    upper: caps === 'all' || (caps === 'small' && smallLetters),
    upright: upright === true,
  };
}

/** Whether a character is a lowercase letter (one small caps draws smaller): it has a capital of its own. */
export function isLowercase(ch: string): boolean {
  return ch !== ch.toUpperCase() && ch === ch.toLowerCase();
}

/** style_text_range's values for case (scales are in percent there, fractions here). */
const CAPS_VALUES = { all: 'all_caps', small: 'small_caps' } as const;
const CAPS_OF = { normal: 'none', all_caps: 'all', small_caps: 'small' } as const;
const POSITION_OF = { normal: 'none', superscript: 'superscript', subscript: 'subscript' } as const;

/** The settings `s` has, by style_text_range's parameters and values: what the model and the studio read. */
export function settingWords(s: CharacterSettings): Record<string, number | string | boolean> {
  const out: Record<string, number | string | boolean> = {};
  for (const [key, value] of Object.entries(settingsOf(s)) as [SettingKey, number | string | boolean][]) {
    out[SETTING_PARAMS[key]] =
      key === 'caps'
        ? CAPS_VALUES[value as 'all' | 'small']
        : key === 'horizontalScale' || key === 'verticalScale' || key === 'tsume'
          ? Math.round((value as number) * 1e4) / 100
          : value;
  }
  return out;
}

/** style_text_range's arguments for the settings as a change of them (settingWords' inverse). */
export function settingsChangeOf(args: {
  readonly leading?: number;
  readonly tracking?: number;
  readonly kerning?: number;
  readonly baseline_shift?: number;
  readonly horizontal_scale?: number;
  readonly vertical_scale?: number;
  readonly caps?: (typeof TEXT_CAPS)[number];
  readonly position?: (typeof TEXT_POSITIONS)[number];
  readonly upright_roman?: boolean;
  readonly tsume?: number;
}): SettingsChange {
  const {
    leading,
    tracking,
    kerning,
    baseline_shift,
    horizontal_scale,
    vertical_scale,
    caps,
    position,
    upright_roman,
    tsume,
  } = args;
  const change = {
    leading,
    tracking,
    kerning,
    baselineShift: baseline_shift,
    horizontalScale: horizontal_scale !== undefined ? horizontal_scale / 100 : undefined,
    verticalScale: vertical_scale !== undefined ? vertical_scale / 100 : undefined,
    caps: caps !== undefined ? CAPS_OF[caps] : undefined,
    position: position !== undefined ? POSITION_OF[position] : undefined,
    upright: upright_roman,
    tsume: tsume !== undefined ? tsume / 100 : undefined,
  };
  return Object.fromEntries(Object.entries(change).filter(([, v]) => v !== undefined)) as SettingsChange;
}
