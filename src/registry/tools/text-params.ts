/**
 * The ranges of Photoshop's character and paragraph panels that set_text_spacing takes and text layers keep
 * (engine/text-spacing.ts, engine/text-paragraph.ts): leading and indents in pixels (the font size's units),
 * tracking in thousandths of an em.
 */
export const MAX_LEADING = 5000;
export const TRACKING_MIN = -1000;
export const TRACKING_MAX = 10000;
export const MAX_INDENT = 1296;
