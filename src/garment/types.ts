/** The garment workflow's data: parts, piece analyses, the print extracted from the photo, and session memory. */
import type { LayerMask, Raster, Rect } from '../engine/model.js';
import {
  GARMENT_PART_LABELS_EN,
  GARMENT_PARTS,
  GARMENT_TURNS,
  type GarmentPart,
} from '../registry/garment-parts.js';
import type { Lab } from './color.js';

export const PARTS: readonly Part[] = GARMENT_PARTS.map(([part]) => part);
export type Part = GarmentPart;

export const PART_LABELS = Object.fromEntries(GARMENT_PARTS) as Readonly<Record<Part, string>>;
export const PART_LABELS_EN: Readonly<Record<Part, string>> = GARMENT_PART_LABELS_EN;

const NAME_ORDER = new Intl.Collator('zh', { numeric: true });

/**
 * The order a designer reads pieces in: by part as the parts are listed (front, back, sleeves, collar…), then
 * by layer name with numbers in number order (图层 2 before 图层 10). A marker's layers stand in no useful order.
 */
export function byPartThenName(a: { part: Part; name: string }, b: { part: Part; name: string }): number {
  return PARTS.indexOf(a.part) - PARTS.indexOf(b.part) || NAME_ORDER.compare(a.name, b.name);
}

export const PIECE_TYPES = ['solid', 'fill_pattern', 'theme_pattern', 'mixed_pattern'] as const;
export type PieceType = (typeof PIECE_TYPES)[number];

/** How a part was decided: the layer name, a mirrored pair, the shape model, a vision model, or the user (confirm_piece_parts). */
export type DecidedBy = 'name' | 'pair' | 'shape' | 'vision' | 'user';

/** Geometry of one piece layer, measured from its alpha. */
export interface PieceShape {
  readonly layerId: number;
  /**
   * What the garment tools call the piece: its layer's name, or, when several piece layers share that name
   * (Photoshop allows it), the name with `#1`, `#2`… from the top, so every piece can be named in a call.
   */
  readonly name: string;
  /** The layer's own name. */
  readonly layerName: string;
  /** The layer's raster when measured: the analysis is stale when the layer no longer holds it. */
  readonly raster: Raster;
  /** Its layer mask when measured (the shape is what the mask shows), for the same staleness check. */
  readonly layerMask: LayerMask | null;
  /**
   * The enabled masks of the groups holding the layer when measured, innermost first (absent when none): they
   * hide what they cover as its own mask does, and the same staleness check reads them.
   */
  readonly groupMasks?: readonly LayerMask[];
  /** Tight bounds of the opaque pixels (alpha ≥ 128), document pixels. */
  readonly bounds: Rect;
  /** 1 inside the piece, over `bounds`. */
  readonly mask: Uint8Array;
  readonly area: number;
  readonly cx: number;
  readonly cy: number;
  /**
   * IoU of the mask with its horizontal mirror: 1 = bilaterally symmetric. For a piece laid askew (`tilt`), about
   * its own axis.
   */
  readonly symmetry: number;
  /**
   * Degrees clockwise by which the marker lays the piece askew, off the canvas's axes (builtin/piece-tilt.ts:
   * read on symmetric pieces, from about 1.5° to 15°); absent when it lies along them. The print runs along the
   * piece, so it is drawn upright and turned by this as well as by the grain's quarter turns (upright.ts).
   */
  readonly tilt?: number;
  /** Neckline depth (top edge at the centre below the shoulders), as a fraction of the height; negative = a cap. */
  readonly neckDepth: number;
  /** max(w/h, h/w). */
  readonly elongation: number;
}

/** Quarter turns, in degrees clockwise, from the piece standing upright on the garment to how the marker lays it. */
export const TURNS = GARMENT_TURNS;
export type Turn = (typeof TURNS)[number];

/**
 * How a piece lies on the marker, when it is not upright: its turn, and who decided it — the shape library
 * (piece-turn.ts) or the user (confirm_piece_parts) — with the library's share of votes for it.
 */
export interface Grain {
  readonly turn: Turn;
  readonly by: 'shape' | 'user';
  readonly confidence: number;
}

export interface PieceInfo extends PieceShape {
  readonly part: Part;
  readonly confidence: number;
  readonly decidedBy: DecidedBy;
  /** The other piece of a mirrored pair. */
  readonly pairWith: string | null;
  /** For the second piece of a pair: its print is the mirror image of its partner's. */
  readonly mirrorOf: number | null;
  readonly reason: string;
  /** How the piece lies on the marker; absent, upright as drawn (the print runs down the canvas). */
  readonly grain?: Grain;
  /**
   * Present when the user stated how far askew the piece lies (confirm_piece_parts): `tilt` is then theirs (absent
   * for 0), not read from the piece's axis.
   */
  readonly tiltBy?: 'user';
  /**
   * How the garment this piece is cut for is worn, as the shapes of its pieces read (builtin/piece-model.ts
   * garmentKind): from the shoulders or from the waist. Absent when names decided every piece and it did not matter.
   */
  readonly worn?: 'top' | 'bottom';
  /** On a marker of one garment in several sizes: which size, 1 the smallest (builtin/pieces.ts gradedSizes). */
  readonly size?: number;
  /** How many layers are this piece's outline (its copies, mirrored or not), itself included. */
  readonly copies: number;
  /**
   * The other layers cut from this piece's outline, in the pieces' order. A part confirmed for one of them decides
   * theirs (confirm_piece_parts), so a doubt is asked once per outline.
   */
  readonly sameOutline: readonly string[];
  /**
   * The layer this one lies on with the same outline at the same place (duplicated and not moved): not a piece
   * of its own, it takes that one's part and print (builtin/pieces.ts stackedOn).
   */
  readonly duplicateOf?: string;
  /**
   * The lower layer this one lies largely on (`share` of the smaller of the two covered), when it is not its
   * duplicate at the same place: a copy flipped or turned where it was duplicated, or another piece. Still a
   * piece of its own; identify_pieces warns that the marker looks unfinished (builtin/pieces.ts withOverlaps).
   */
  readonly overlaps?: { readonly name: string; readonly share: number };
  /**
   * The piece whose outline this layer's whole outline copies when its layer mask hides part of it (a sleeve
   * cut short): its part and turn are read on that outline, its print follows what the mask shows.
   */
  readonly cutFrom?: string;
  /**
   * When the garment-level assignment is in doubt about this piece: the likeliest other part and its
   * probability (identify_pieces then asks for confirmation), and the next likeliest part after it when that is
   * not negligible.
   */
  readonly doubt?: {
    readonly part: Part;
    readonly confidence: number;
    readonly next?: { readonly part: Part; readonly confidence: number };
  };
}

/**
 * The parts a piece in doubt may be instead: the doubt's alternative (what the garment-level assignment or the
 * front/back cues would make of it, with its share of the assignments), then the next likeliest part by the
 * piece's own reading (its probability). The two measures differ, so the order is by source, not by number.
 */
export function alternativesOf(doubt: NonNullable<PieceInfo['doubt']>): { part: Part; confidence: number }[] {
  return doubt.next ? [doubt, doubt.next] : [doubt];
}

export interface PaletteEntry {
  readonly hex: string;
  readonly lab: Lab;
  /** Fraction of the sampled pixels, 0..1. */
  readonly share: number;
}

/** A periodic lattice found in the photo: basis vectors (photo pixels) and the rectangular super-tile holding one period in x and y. */
export interface Lattice {
  readonly v1: readonly [number, number];
  readonly v2: readonly [number, number];
  /** Normalised autocorrelation at the basis vectors (0..1). */
  readonly confidence: number;
  /** The super-tile: (tileW, 0) and (0, tileH) are lattice vectors. */
  readonly tileW: number;
  readonly tileH: number;
  /** Repeats of the lattice cell inside the garment. */
  readonly repeats: number;
  /** 'block', 'half_drop', 'half_brick' or 'lattice'. */
  readonly layout: string;
  /** A shorter lattice that was considered and rejected as not an exact repeat (a plaid's sub-blocks). */
  readonly shorter?: {
    readonly v1: readonly [number, number];
    readonly v2: readonly [number, number];
    readonly confidence: number;
  };
}

export interface Motif {
  /** Bounds in photo (analysis) pixels. */
  readonly bounds: Rect;
  /** The motif for a multiply layer: its colours divided by what lies under it, white elsewhere (bounds-sized). */
  readonly onWhite: Raster;
  /** The photo as it is inside `bounds` (template for finding the motif again). */
  readonly photo: Raster;
  /**
   * The print's own colours inside `bounds`: `photo` with the light on it (a fold across the motif, a falloff)
   * divided out, as measured on the ground or repeat around the motif; `photo` itself where the light is even.
   * `onWhite` and the cut-out are made from it.
   */
  readonly print: Raster;
  /** 1 on the motif's pixels (and a one-pixel rim, so the cut-out keeps its anti-aliased edge), bounds-sized. */
  readonly mask: Uint8Array;
  /** What the ground or the repeat predicts under the motif (what `onWhite` was divided by), bounds-sized. */
  readonly under: Raster;
  /** Share of the garment area. */
  readonly share: number;
  /** Offset of the motif's centre from the garment's centre axis and its top from the garment top, in photo px. */
  readonly dx: number;
  readonly dy: number;
}

/** A garment photographed askew, and the photo turned back level before its print was read. */
export interface Level {
  /** Degrees clockwise the garment lay turned from upright in the photo as taken. */
  readonly degrees: number;
  /**
   * The photo as taken and as levelled (full resolution px; the levelled canvas holds the whole photo, or for a
   * swatch the largest part of it that is still all fabric, about the same middle).
   */
  readonly original: readonly [number, number];
  readonly levelled: readonly [number, number];
}

/** What generate_garment_preview extracts from the photo, once per photo. */
export interface Extraction {
  readonly photoPath: string;
  readonly photoHash: string;
  /**
   * The analysed photo (downscaled to ≤ 1024 px long side) and the factor from the original — from the levelled
   * photo when `level` is set: every position of the extraction is in the levelled photo.
   */
  readonly width: number;
  readonly height: number;
  readonly analysisScale: number;
  /** The turn taken out of the photo, or null when the garment lay level (or is a swatch). */
  readonly level: Level | null;
  /** Garment silhouette bounds in the analysed photo; `swatch` when the photo is all fabric. */
  readonly garment: Rect;
  readonly swatch: boolean;
  readonly photoDpi: number;
  /** Silhouette width at 65 % of its height (the body, below the sleeves), analysed px. */
  readonly bodyWidth: number;
  readonly palette: readonly PaletteEntry[];
  readonly ground: PaletteEntry;
  readonly lattice: Lattice | null;
  /**
   * Without a repeat, the garment's largest clean rectangle of print (analysed px): what fills the crop off the
   * garment, and where pieces other than the front and back take their print. Null with a repeat.
   */
  readonly printArea: Rect | null;
  /** The repeat super-tile (tileW × tileH), or, without a repeat, the garment crop with the outside filled in. */
  readonly tile: Raster;
  readonly tileIsRepeat: boolean;
  readonly motif: Motif | null;
  readonly kind: PieceType;
  /** Fraction of garment pixels within ΔE76 12 of the ground colour, or the ground colour in shadow. */
  readonly flatness: number;
  /** Regions set aside as light rather than print: fold shadows, the neck opening. */
  readonly notPrint: readonly ('fold_shadow' | 'neck_opening')[];
  /** The garment was photographed worn: its wearer (head, arms, legs) was taken off its outline and colours. */
  readonly worn?: boolean;
}

export interface GarmentAnalysis {
  readonly docId: number;
  readonly pieces: readonly PieceInfo[];
  readonly provider: string;
  readonly proposals: readonly Proposal[] | null;
  /**
   * The layers identify_pieces looked at (pieces or not): a layer that is a piece now and not in the analysis makes
   * it stale, and this says whether it was added since or was looked at and changed.
   */
  readonly examined?: readonly number[];
  /**
   * Parts the user confirmed for this document, as sessions before GarmentMemory.confirmations kept them (read
   * when that is absent; no longer written).
   */
  readonly confirmed?: readonly { readonly layerId: number; readonly part: Part }[];
}

/** A part the user confirmed for a piece layer of a document (confirm_piece_parts). */
export interface Confirmation {
  readonly docId: number;
  readonly layerId: number;
  readonly part: Part;
  /** How the user said the piece lies on the marker, when they did. */
  readonly turn?: Turn;
  /** How far askew the user said it lies (degrees clockwise, 0: along the canvas), when they did. */
  readonly tilt?: number;
}

export interface Proposal {
  readonly name: string;
  readonly type: PieceType;
  readonly color: string;
}

/** Where the print goes: document → analysed-photo coordinates, px = (X − docX) / scale + photoX. */
export interface Placement {
  readonly scale: number;
  readonly docX: number;
  readonly docY: number;
  readonly photoX: number;
  readonly photoY: number;
  /** The piece the mapping is anchored on, and how the scale was chosen. */
  readonly anchor: string;
  readonly scaleBasis: string;
  /** Pieces whose print is shifted so it runs on across their seams (seams.ts), and what was matched. */
  readonly shifts: readonly { readonly layerId: number; readonly dx: number; readonly dy: number }[];
  readonly seams: readonly string[];
  /** The seams across which the print was made to run on (the circle's closing seam is not among them). */
  readonly joins: readonly SeamJoin[];
  /**
   * Where the garment's centre line and top fall on each front panel (seams.ts frontAnchors): a placement motif
   * is drawn about them, across the panels it spans. Absent on placements made before it was kept.
   */
  readonly centres?: readonly CentreAnchor[];
}

/**
 * A front panel's frame on the garment, in document pixels of the panel standing upright: `x` the column (a pixel
 * edge, as a rect's middle is) where the garment's centre front runs, `y` the row the garment's top is level with
 * (its hem level with the main front's). Off the panel for a side panel or a half: the centre lies beyond it.
 */
export interface CentreAnchor {
  readonly layerId: number;
  readonly x: number;
  readonly y: number;
}

/**
 * Two body panels whose print runs on across the seam between them: `left`'s right edge (seen from outside)
 * meets `right`'s left edge; `at` is a side seam, a centre front or back seam between halves, or a panel seam (a
 * princess seam, a side panel's) between a centre panel and a side panel.
 */
export interface SeamJoin {
  readonly left: number;
  readonly right: number;
  readonly at: 'side' | 'centre' | 'panel';
  /**
   * The print meets itself here as a mirror image rather than running on: one panel is drawn mirrored, the other
   * not, and the print does not mirror onto itself (seams.ts). Verify leaves it to the symmetry measure.
   */
  readonly reflected?: true;
}

export interface PreviewRecord {
  readonly docId: number;
  readonly photoHash: string;
  readonly placement: Placement;
  /**
   * Applied since it was made (by extract_and_apply_all_pieces, whoever asked for it): a preview card then no
   * longer offers to apply it. A new preview is a new record without it.
   */
  readonly applied?: true;
}

export interface AppliedPiece {
  readonly name: string;
  readonly layerId: number;
  readonly type: PieceType;
  readonly color: string | null;
  readonly groupId: number;
}

export interface AppliedRecord {
  readonly docId: number;
  readonly photoHash: string;
  readonly placement: Placement;
  readonly pieces: readonly AppliedPiece[];
}

/** Per-session garment memory; replaced as a whole, and only by a call that succeeded. */
export interface GarmentMemory {
  readonly analysis: GarmentAnalysis | null;
  readonly extraction: Extraction | null;
  readonly preview: PreviewRecord | null;
  readonly applied: AppliedRecord | null;
  /**
   * The parts the user confirmed, for every document of the session: identifying another document in between
   * replaces the analysis, not these. Absent in older sessions.
   */
  readonly confirmations?: readonly Confirmation[];
}

export const EMPTY_GARMENT_MEMORY: GarmentMemory = Object.freeze({
  analysis: null,
  extraction: null,
  preview: null,
  applied: null,
});
