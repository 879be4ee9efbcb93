/**
 * The ranges of Photoshop's character and paragraph panels that set_text_spacing takes and text layers keep
 * (engine/text-spacing.ts, engine/text-paragraph.ts): leading and indents in pixels (the font size's units),
 * tracking in thousandths of an em.
 */
export const MAX_LEADING = 5000;
export const TRACKING_MIN = -1000;
export const TRACKING_MAX = 10000;
/**
 * Free fonts drawn in place of a font that is not installed, by the font's name lowercased without spaces, hyphens
 * or underscores, where their advance widths and vertical metrics are the original's (Liberation's, Debian's
 * `fonts-liberation`, made to be: Arial's, Times New Roman's and Courier New's exactly, Adobe's Times-Roman's within
 * about 2 %): the lines break and stand where Photoshop sets them, only the glyphs' shapes differ. Each weight and
 * slant has its own PostScript name (Arial-BoldMT, TimesNewRomanPS-ItalicMT) and its own twin face, named as
 * TWIN_FACES spells it ("Liberation Sans Bold"). The engine draws with them; the studio's typing box shows them.
 */
export const METRIC_TWINS: ReadonlyMap<string, string> = new Map(
  twinTable().flatMap(([face, names]) => names.map((n) => [n, faceName(face)] as const)),
);

/** One face of a twin family: "Liberation Sans Bold Italic" is Liberation Sans, bold and italic. */
export interface TwinFace {
  readonly family: string;
  readonly bold: boolean;
  readonly italic: boolean;
}

/** Each twin face and the names (as fontKey spells them) of the font it stands for. */
function twinTable(): [TwinFace, readonly string[]][] {
  return (
    [
      ['Liberation Sans', '', ['arial', 'arialmt', 'helvetica']],
      ['Liberation Sans', 'b', ['arialbold', 'arialboldmt', 'helveticabold']],
      ['Liberation Sans', 'i', ['arialitalic', 'arialitalicmt', 'helveticaoblique']],
      ['Liberation Sans', 'bi', ['arialbolditalic', 'arialbolditalicmt', 'helveticaboldoblique']],
      ['Liberation Serif', '', ['timesnewroman', 'timesnewromanpsmt', 'times', 'timesroman']],
      ['Liberation Serif', 'b', ['timesnewromanbold', 'timesnewromanpsboldmt', 'timesbold']],
      ['Liberation Serif', 'i', ['timesnewromanitalic', 'timesnewromanpsitalicmt', 'timesitalic']],
      [
        'Liberation Serif',
        'bi',
        ['timesnewromanbolditalic', 'timesnewromanpsbolditalicmt', 'timesbolditalic'],
      ],
      ['Liberation Mono', '', ['couriernew', 'couriernewpsmt']],
      ['Liberation Mono', 'b', ['couriernewbold', 'couriernewpsboldmt']],
      ['Liberation Mono', 'i', ['couriernewitalic', 'couriernewpsitalicmt']],
      ['Liberation Mono', 'bi', ['couriernewbolditalic', 'couriernewpsbolditalicmt']],
    ] as const
  ).map(([family, style, names]) => [
    { family, bold: style.includes('b'), italic: style.includes('i') },
    names,
  ]);
}

function faceName(face: TwinFace): string {
  return `${face.family}${face.bold ? ' Bold' : ''}${face.italic ? ' Italic' : ''}`;
}

const TWIN_FACES: ReadonlyMap<string, TwinFace> = new Map(
  twinTable().map(([face]) => [faceName(face), face] as const),
);

/** The family and style of a twin face named as METRIC_TWINS names it; undefined for any other name. */
export function twinFace(name: string): TwinFace | undefined {
  return TWIN_FACES.get(name);
}

/** A font name as the twins and installed families are compared: lower case, without spaces, hyphens or underscores. */
export function fontKey(name: string): string {
  return name.toLowerCase().replace(/[\s_-]+/g, '');
}

/** The metric twin of `font` (METRIC_TWINS), whatever its case and spacing; undefined when it has none. */
export function twinOf(font: string): string | undefined {
  return METRIC_TWINS.get(fontKey(font));
}

/** Photoshop's manual kerning between two characters, thousandths of an em. */
export const KERNING_MIN = -1000;
export const KERNING_MAX = 1000;
export const MAX_INDENT = 1296;
/** Photoshop's character panel's 垂直缩放 and 水平缩放, in percent of the glyphs' designed height and width. */
export const SCALE_MIN_PERCENT = 1;
export const SCALE_MAX_PERCENT = 1000;
/** The largest baseline shift (基线偏移) either way, in pixels (the font size's units). */
export const MAX_BASELINE_SHIFT = 5000;

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

/** Photoshop's 弯曲 of a text warp, percent either way: ±100 bends Arc text into a half circle. */
export const WARP_BEND_MAX = 100;

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

/**
 * The character panel's case buttons (全部大写 all caps, 小型大写 small caps) and position buttons (上标 superscript,
 * 下标 subscript), by style_text_range's values for them; `normal` clears them.
 */
export const TEXT_CAPS = ['normal', 'all_caps', 'small_caps'] as const;
export const TEXT_POSITIONS = ['normal', 'superscript', 'subscript'] as const;

/**
 * The rest of the character panel's settings (leading, tracking, kerning, 基线偏移, 水平缩放, 垂直缩放, case, position) by the
 * engine's name for each and style_text_range's parameter for it.
 */
export const SETTING_PARAMS = {
  leading: 'leading',
  tracking: 'tracking',
  kerning: 'kerning',
  baselineShift: 'baseline_shift',
  horizontalScale: 'horizontal_scale',
  verticalScale: 'vertical_scale',
  caps: 'caps',
  position: 'position',
  upright: 'upright_roman',
  tsume: 'tsume',
} as const;

/**
 * How Photoshop synthesises small caps, superscript and subscript, as shares of the font size: the text engine's own
 * document defaults, which every PSD states (SmallCapSize 0.7, SuperscriptSize and SubscriptSize 0.583,
 * SuperscriptPosition and SubscriptPosition 0.333) and Photoshop does not let a user change. The engine draws by
 * them and the studio's typing box shows them.
 */
export const SMALL_CAP_SIZE = 0.7;
/**
 * How much 仿粗体 faux bold thickens characters in all and widens each one's advance, in ems: what Photoshop's
 * rendering of faux bold Arial shows (every letter of a faux bold line within a pixel of Photoshop's, where
 * FreeType's 1/24 em and an unchanged advance put the line's end 8 px short: text-photoshop.test.ts).
 */
export const FAUX_BOLD_EM = 1 / 32;
export const SUPERSCRIPT_SIZE = 0.583;
export const SUPERSCRIPT_POSITION = 0.333;
export const SUBSCRIPT_SIZE = 0.583;
export const SUBSCRIPT_POSITION = 0.333;
