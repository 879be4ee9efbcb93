/**
 * The ranges of Photoshop's character and paragraph panels that set_text_spacing takes and text layers keep
 * (engine/text-spacing.ts, engine/text-paragraph.ts): leading and indents in pixels (the font size's units),
 * tracking in thousandths of an em.
 */
export const MAX_LEADING = 5000;
export const TRACKING_MIN = -1000;
export const TRACKING_MAX = 10000;
export const MAX_INDENT = 1296;

/**
 * Photoshop's paragraph alignments (the paragraph panel's seven buttons): left, centre, right, and the four
 * justifications of paragraph text, which spread every line but a paragraph's last to the box's width, the last
 * aligned as named (justify-all spreads it too).
 */
export const JUSTIFICATIONS = [
  'left',
  'right',
  'center',
  'justify-left',
  'justify-right',
  'justify-center',
  'justify-all',
] as const;

/** The alignments point text takes: it has no width to spread lines to (Photoshop greys the others out). */
export const POINT_JUSTIFICATIONS = ['left', 'center', 'right'] as const;
