/**
 * Photoshop's synthetic character styles (FauxStyles, model.ts): 仿粗体 faux bold, 仿斜体 faux italic, 下划线 underline
 * and 删除线 strikethrough, for fonts without a bold or italic face (most Chinese fonts have one weight, so
 * Chinese headlines are often set in faux bold). Adobe does not state how much it thickens or slants. Faux bold is
 * drawn as Photoshop's own rendering of it measures: the outline grown by 1/32 em in all and each character's
 * advance widened by as much (FAUX_BOLD_EM; FreeType's ftsynth.c, the usual reference, grows it by 1/24 em). Faux
 * italic as FreeType slants it: 0.2 (about 11°) about the baseline, which Photoshop's rendering matches within a
 * pixel. Underline and strikethrough are rules 1/20 em thick, centred 0.15 em below the baseline (just under the
 * ideographic em box, which reaches 0.12 em below it, so Chinese does not touch it) and 0.3 em above it.
 * Vertical text keeps all four in its file and draws faux bold; the others are drawn only on horizontal lines.
 */
import { FAUX_BOLD_EM, FAUX_PARAMS } from '../registry/tools/text-params.js';
import type { FauxStyles } from './model.js';

/** How much faux bold grows an outline in all, in ems (a stroke this wide centred on it), and each advance. */
export { FAUX_BOLD_EM };

export const FAUX_KEYS = ['fauxBold', 'fauxItalic', 'underline', 'strikethrough'] as const;
export type FauxKey = (typeof FAUX_KEYS)[number];

/** Faux italic's slant: x grows by this much per unit of height above the baseline. */
export const FAUX_ITALIC_SLANT = 0.2;
/** Rules' thickness and where underline and strikethrough lie from the baseline, in ems (down positive). */
export const RULE_EM = 0.05;
export const UNDERLINE_EM = 0.15;
export const STRIKETHROUGH_EM = -0.3;

/** The faux styles `s` has on (a PSD's style states each as true or false). */
export function fauxOf(s: Partial<Record<FauxKey, boolean>>): FauxStyles {
  return Object.fromEntries(FAUX_KEYS.filter((k) => s[k] === true).map((k) => [k, true])) as FauxStyles;
}

export function sameFaux(a: FauxStyles, b: FauxStyles): boolean {
  return FAUX_KEYS.every((k) => (a[k] === true) === (b[k] === true));
}

/** `s` with `change`'s faux styles set (true) or cleared (false), the others as they were. */
export function withFaux<T extends FauxStyles>(s: T, change: Partial<Record<FauxKey, boolean>>): T {
  const out = { ...s } as Record<string, unknown>;
  for (const k of FAUX_KEYS) {
    if (change[k] === true) out[k] = true;
    else if (change[k] === false) delete out[k];
  }
  return out as T;
}

/** `s` without any faux style. */
export function withoutFaux<T extends FauxStyles>(s: T): Omit<T, FauxKey> {
  const out = { ...s } as Record<string, unknown>;
  for (const k of FAUX_KEYS) delete out[k];
  return out as Omit<T, FauxKey>;
}

/** A character style's faux styles by style_text_range's parameters, for the model and the studio. */
export function fauxWords(s: FauxStyles): Record<string, true> {
  return Object.fromEntries(FAUX_KEYS.filter((k) => s[k] === true).map((k) => [FAUX_PARAMS[k], true]));
}

/** The faux styles every one of `styles` has on. */
export function sharedFaux(styles: readonly FauxStyles[]): FauxStyles {
  return Object.fromEntries(
    FAUX_KEYS.filter((k) => styles.length > 0 && styles.every((s) => s[k] === true)).map((k) => [k, true]),
  ) as FauxStyles;
}
