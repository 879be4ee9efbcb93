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

/** The largest paragraph text box, either side, in pixels: a document's largest side (create_document). */
export const MAX_TEXT_BOX = 300_000;

/**
 * Where point text's first baseline lies below the `y` create_text_layer takes (the top of its text box), in ems:
 * the bundled font's ascender, the top of its ideographic em box, so Chinese ink starts just below `y`. The engine
 * sets text by it and the studio's typing box stands where the text will.
 */
export const TEXT_BASELINE_EM = 0.88;

/**
 * Photoshop's text orientations (the options bar's Toggle Text Orientation): horizontal, lines left to right and
 * down the page; vertical (直排), columns top to bottom and right to left, Chinese upright and Latin turned.
 */
export const TEXT_ORIENTATIONS = ['horizontal', 'vertical'] as const;

/**
 * Photoshop's faux styles (仿粗体, 仿斜体, 下划线, 删除线) by the engine's name for each and style_text_range's
 * parameter for it: what the model and the studio call them.
 */
export const FAUX_PARAMS = {
  fauxBold: 'faux_bold',
  fauxItalic: 'faux_italic',
  underline: 'underline',
  strikethrough: 'strikethrough',
} as const;
