/**
 * The bounds on what a caller controls, stated once: every string and list parameter carries one of these in
 * its tool's `limits`, validation refuses beyond them before anything runs, and the published description of
 * the parameter states them (see `withStatedBounds`). They keep one call cheap to refuse whatever it sends.
 */
import type { ParamLimits } from './types.js';

/** Layer, group, document and font names (Photoshop's own limit on a layer name is 255 characters). */
export const NAME_MAX_LENGTH = 255;
/** The content of one text layer. */
export const TEXT_MAX_LENGTH = 10_000;
/** A free-text note beside data, e.g. a piece's pattern description. */
export const NOTE_MAX_LENGTH = 1000;
/** A workspace-relative path (Linux's PATH_MAX is 4096 bytes; a session path needs far less). */
export const PATH_MAX_LENGTH = 1024;
/** A list of layer names. */
export const LAYER_LIST_MAX_ITEMS = 1000;
/** The pieces of one garment application (a marker of a whole size run stays well below). */
export const PIECES_MAX_ITEMS = 200;
/** Steps one document's history keeps, older ones dropped (Photoshop's default number of history states). */
export const HISTORY_MAX_STEPS = 50;
/**
 * How far from the canvas's origin a layer may lie, in pixels: PSD and PSB record layer and mask rectangles as
 * signed 32-bit integers, so a layer further out could not be saved where it is.
 */
export const LAYER_REACH_MAX = 2 ** 31 - 1;
/** Tool names are `^[a-z][a-z0-9_]{0,63}$` in every model API, so a longer name is no tool's. */
export const TOOL_NAME_MAX_LENGTH = 64;

/** A name that looks up an existing layer, group, document or font (an opened PSD may hold a blank one). */
export const NAME = { maxLength: NAME_MAX_LENGTH } as const satisfies ParamLimits;
/** A name given to a new or renamed layer, group or document. */
export const NEW_NAME = { maxLength: NAME_MAX_LENGTH, nonBlank: true } as const satisfies ParamLimits;
export const TEXT = { maxLength: TEXT_MAX_LENGTH } as const satisfies ParamLimits;
export const NOTE = { maxLength: NOTE_MAX_LENGTH } as const satisfies ParamLimits;
export const PATH = { format: 'path', maxLength: PATH_MAX_LENGTH } as const satisfies ParamLimits;
export const LAYER_NAMES = { maxItems: LAYER_LIST_MAX_ITEMS, each: NAME } as const satisfies ParamLimits;
