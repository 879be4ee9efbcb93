/**
 * The shapes of a session snapshot (snapshot.ts), with no import of their own, so that the studio's browser code
 * reads the same types the server writes.
 */

/** One layer as `get_layer_structure` reports it; a group has `children`. */
export interface LayerNode {
  readonly id: number;
  readonly name: string;
  /** When several layers share the name: what a call names this one by (`name#2`…, from the top). */
  readonly ref?: string;
  readonly type: string;
  readonly visible: boolean;
  readonly opacity: number;
  /** Photoshop's fill opacity (填充), only when below 100. */
  readonly fill_opacity?: number;
  readonly blend_mode: string;
  readonly locked: boolean;
  /** Photoshop's partial locks, from a file (only when not wholly `locked`). */
  readonly locks?: readonly ('position' | 'pixels' | 'transparency')[];
  readonly clipped?: boolean;
  readonly mask?: boolean;
  /** Its layer style's effects (Photoshop's fx), only when it has any. */
  readonly effects?: readonly (
    | 'stroke'
    | 'inner_shadow'
    | 'inner_glow'
    | 'color_overlay'
    | 'gradient_overlay'
    | 'outer_glow'
    | 'drop_shadow'
  )[];
  readonly background?: boolean;
  readonly group?: string;
  /** left, top, width, height, right, bottom, center_x, center_y (pixels), or `empty`. */
  readonly bounds?: Readonly<Record<string, number | boolean>>;
  readonly children?: readonly LayerNode[];
  /**
   * Only in a session snapshot, for a layer with a thumbnail (pixels, a placed image, a fill): a key that
   * changes when the thumbnail does; the studio asks for `layers/<id>/thumbnail.png?v=<key>`.
   */
  readonly thumbnail?: string;
  /** Likewise for a layer with a mask: its mask's thumbnail, `thumbnail.png?of=mask&v=<key>`. */
  readonly mask_thumbnail?: string;
  /** Only in a session snapshot, for a text layer: what the studio's text tool edits in place. */
  readonly text?: TextNode;
}

export interface TextNode {
  readonly content: string;
  /** Font size, document px; where the text stands (text.ts: a box's top-left, or point text's anchor), document px; colour as #rrggbb. */
  readonly size: number;
  readonly x: number;
  readonly y: number;
  readonly color: string;
  /**
   * The font asked for (what the file keeps and Photoshop shows; a bundled weight by its family alias, as
   * GET /v1/fonts lists it), which may be drawn in a bundled weight.
   */
  readonly font: string;
  /** False when the text is rotated, skewed or scaled by a transform (the editor then shows it upright). */
  readonly upright: boolean;
  /**
   * Set in columns (直排): `x` is then the first column's centre line and `y` its top (paragraph text: its box's
   * top-left, as ever).
   */
  readonly vertical?: true;
  /** Bent by Photoshop's Arc warp (文字变形 › 扇形): its bend in percent, up (positive) or down. Absent: straight. */
  readonly warp?: { readonly style: 'arc'; readonly bend: number };
  /**
   * How its lines are aligned: point text about `x` (centre: centred on it, right: ending at it), paragraph
   * text within its box. Absent: left.
   */
  readonly align?: 'center' | 'right';
  /** Paragraph text's box, document px, from `x, y`; absent for point text. */
  readonly box?: { readonly width: number; readonly height: number };
  /** The paragraphs' indents, document px (text-paragraph.ts); absent: none. */
  readonly indent?: { readonly left: number; readonly first: number; readonly right: number };
  /** Space before and after the paragraphs, document px (text-paragraph.ts); absent: none. */
  readonly space?: { readonly before: number; readonly after: number };
  /** A fixed leading, document px between baselines; absent: auto (120 % of the size). */
  readonly leading?: number;
  /** Space after every character, in thousandths of an em (Photoshop's tracking); absent: none. */
  readonly tracking?: number;
  /** The faux styles every character has on, by style_text_range's parameter names; absent: none. */
  readonly faux?: readonly FauxName[];
  /**
   * The character panel's other settings every character shares, by style_text_range's parameters and values
   * (baseline_shift in px, horizontal_scale and vertical_scale in percent, caps, position; leading and tracking are
   * the fields above); absent where they share none.
   */
  readonly character?: CharacterWords;
  /**
   * Characters set differently (style runs), in order over the content: each stretch's length (UTF-16 code units),
   * font (as `font`), size, colour, faux styles and other settings (all of them, leading and tracking too); absent
   * where all share the fields above.
   */
  readonly styles?: readonly {
    readonly length: number;
    readonly font: string;
    readonly size: number;
    readonly color: string;
    readonly faux?: readonly FauxName[];
    readonly character?: CharacterWords;
  }[];
}

/** Character settings by style_text_range's parameter names, with its values. */
export interface CharacterWords {
  readonly leading?: number;
  readonly tracking?: number;
  readonly kerning?: number;
  readonly baseline_shift?: number;
  readonly horizontal_scale?: number;
  readonly vertical_scale?: number;
  readonly caps?: 'all_caps' | 'small_caps';
  readonly position?: 'superscript' | 'subscript';
  readonly upright_roman?: boolean;
  readonly tsume?: number;
}

/** Photoshop's faux styles by style_text_range's parameter names. */
export type FauxName = 'faux_bold' | 'faux_italic' | 'underline' | 'strikethrough';

export interface HistorySnapshot {
  /** Chinese step labels, oldest first; `labels[0]` is the opening step. */
  readonly labels: readonly string[];
  /** The step the document is at; later steps can be redone. */
  readonly index: number;
}

export interface DocumentSnapshot {
  readonly name: string;
  readonly width: number;
  readonly height: number;
  readonly resolution: number;
  readonly mode: 'RGB' | 'CMYK';
  readonly path: string | null;
  readonly unsaved_changes: boolean;
  readonly active: boolean;
}

export interface ActiveDocumentSnapshot extends DocumentSnapshot {
  readonly active_layer: string | null;
  /** The active and selected layers by id: names may be shared. */
  readonly active_layer_id: number | null;
  /** Top of the stack first, groups with `children`, as `get_layer_structure` reports it. */
  readonly layers: readonly LayerNode[];
  readonly selected_layers: readonly string[];
  readonly selected_layer_ids: readonly number[];
  readonly has_selection: boolean;
  /** The foreground colour (set_foreground_color, the studio's swatch and eyedropper), `#rrggbb`. */
  readonly foreground: string;
  /** The pixel selection, null without one. */
  readonly selection: SelectionSnapshot | null;
  readonly history: HistorySnapshot;
  /** Spot and alpha channels (kept from a PSD; not editable), in the Channels panel's order; absent without. */
  readonly channels?: readonly ChannelSnapshot[];
}

export interface ChannelSnapshot {
  readonly name: string;
  readonly kind: 'spot' | 'alpha';
  /** A spot channel's ink as shown on the canvas, `#rrggbb`; null when it is not shown. */
  readonly color: string | null;
}

export interface SelectionSnapshot {
  /** The selected pixels' bounding box inside the canvas (document px; empty when nothing is selected). */
  readonly bounds: { readonly x: number; readonly y: number; readonly w: number; readonly h: number };
  /**
   * Its edge as an SVG path's `d` in document px, to be drawn with the even-odd rule (so holes show): exact for
   * a rectangle stored as one (a marquee, its inverse, Select All); otherwise traced on at most 1024 cells along
   * the canvas's longer side and thinned to within three quarters of a cell, on coarser cells for a speckled
   * selection and as its bounds past that (engine/selection-outline.ts). Empty when nothing inside the canvas is
   * selected.
   */
  readonly outline: string;
}

export interface GarmentSnapshot {
  readonly photo: string | null;
  /** The open document whose pieces `pieces` are (the one identified last); null when none is. */
  readonly document: string | null;
  /** The pieces `identify_pieces` found in the active analysis, with their proposed type and colour. */
  readonly pieces: readonly {
    readonly name: string;
    readonly part: string;
    readonly part_label: string;
    /** How sure the identification is, 0..1. */
    readonly confidence: number;
    /**
     * When the garment-level assignment was in doubt: the other parts the piece may be (one or two: the
     * garment-level alternative, then the next likeliest by the piece's own reading), with their confidences;
     * empty when it was not.
     */
    readonly alternatives: readonly { readonly part_label: string; readonly confidence: number }[];
    /** The user confirmed this part (confirm_piece_parts). */
    readonly confirmed: boolean;
    /** How the marker lays it, degrees clockwise from upright on the garment (0: as drawn). */
    readonly turn: number;
    /** Who said it lies turned: the shape library or the user; null when it lies as drawn. */
    readonly turn_by: 'shape' | 'user' | null;
    /** How far askew the marker lays it beside its turn, degrees clockwise (0: along the canvas). */
    readonly tilt: number;
    /** Who said it lies askew (or, for the user, that it does not): null when it lies along the canvas. */
    readonly tilt_by: 'shape' | 'user' | null;
    /** Where the piece lies on its document: the tight bounds of its pixels, document px. */
    readonly bounds: { readonly x: number; readonly y: number; readonly w: number; readonly h: number };
    /** On a marker of one garment in several sizes, the piece's size (1 the smallest); null otherwise. */
    readonly size: number | null;
    readonly type: string | null;
    readonly color: string | null;
  }[];
  readonly previewed: boolean;
  /** The preview kept now has been applied (the model or the designer applied it): nothing left to confirm. */
  readonly preview_applied: boolean;
  readonly applied: boolean;
  /** The piece types the photo's reading cannot give, each with why (empty before the photo is read). */
  readonly unavailable_types: readonly { readonly type: string; readonly reason: string }[];
}

export interface SessionSnapshot {
  readonly documents: readonly DocumentSnapshot[];
  readonly active: ActiveDocumentSnapshot | null;
  readonly garment: GarmentSnapshot;
}
