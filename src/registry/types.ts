/**
 * The shape of a tool definition. A definition is the single source of truth for a tool: its published
 * schema, its label, the limits validation enforces and, at the type level, its handler's arguments.
 */

import { withStatedBounds } from './stated-bounds.js';

export type ScalarType = 'string' | 'number' | 'boolean';
export type ParamType = ScalarType | 'array' | 'object';

/** A property schema exactly as the spec publishes it: `{type, description, enum?, items?}` and nothing else. */
export interface ParamSchema {
  readonly type: ParamType;
  readonly description: string;
  readonly enum?: readonly string[];
  readonly items?: ItemSchema;
}

export type ItemSchema =
  | { readonly type: ScalarType }
  | {
      readonly type: 'object';
      readonly properties: Readonly<Record<string, ParamSchema>>;
      readonly required: readonly string[];
    };

export interface ParametersSchema {
  readonly type: 'object';
  readonly properties: Readonly<Record<string, ParamSchema>>;
  readonly required: readonly string[];
}

/**
 * Checks beside the schema that validation enforces but the published schema does not carry.
 * `format: 'color'` accepts `#RRGGBB`, `RRGGBB` or `#RGB` and normalises to `#rrggbb`;
 * `format: 'path'` is a workspace-relative path naming a file (not blank, not dots only).
 * Every string parameter is bounded by `maxLength`, an `enum` or `format: 'color'`, every array by `maxItems`
 * (src/registry/bounds.ts); the published description states length bounds (src/registry/stated-bounds.ts).
 */
export interface ParamLimits {
  readonly min?: number;
  readonly max?: number;
  /** The value must be strictly greater than this. */
  readonly above?: number;
  readonly integer?: boolean;
  readonly default?: unknown;
  readonly format?: 'color' | 'path';
  /**
   * Colours: press inks are accepted too, `cmyk(C,M,Y,K)` in percent (a print designer's K-only black is
   * `cmyk(0,0,0,100)`, which no hex colour separates to), normalised to `cmyk(c,m,y,k)`.
   */
  readonly inks?: boolean;
  /**
   * Numbers: what the value measures, for a surface that offers other units — a length in pixels (`px`) and the
   * resolution (`dpi`) that turns it into millimetres, centimetres, inches or points (the studio's form) — or
   * shows it beside the value (`%`: a percentage).
   */
  readonly unit?: 'px' | 'dpi' | '%';
  /** Strings: the most characters (Unicode code points). */
  readonly maxLength?: number;
  /**
   * Strings: must hold a character other than whitespace (full-width U+3000 included). For the name of a new
   * layer, group or document: Photoshop refuses a blank one, and a model could not address it by name.
   */
  readonly nonBlank?: boolean;
  /** Arrays: the most elements. */
  readonly maxItems?: number;
  /** Arrays of scalars: the limits of each element. */
  readonly each?: ParamLimits;
  /** Arrays of objects: the limits of the named fields of each element. */
  readonly items?: Readonly<Record<string, ParamLimits>>;
}

export type ToolGroup = 'A' | 'B' | 'C' | 'D' | 'E';

/**
 * What a tool is for, as a client narrowing the list chooses it (an MCP server's toolsets, toolsets.ts). The
 * groups A–E follow the spec's chapters, which mix purposes (C alone holds 49 tools; the garment flow needs
 * tools of B and E): a toolset gathers the tools one kind of job needs. `core` (documents, looking, undo) comes
 * with every choice. Listed in this order: a client that keeps only the first tools keeps the ones every job
 * needs, then the garment flow (the product's own job), then the layer tools most edits start from.
 */
export const TOOLSET_KEYS = [
  'core',
  'garment',
  'layers',
  'text',
  'arrange',
  'effects',
  'adjust',
  'selection',
  'document',
] as const;
export type Toolset = (typeof TOOLSET_KEYS)[number];

/**
 * What a call does to the documents and the files: `read` changes neither; `write` edits a document (undo takes it
 * back); `destructive` may discard work — it removes or merges layers, masks, effects or guides, cuts, resamples
 * or clips colours of the whole document, closes a document, moves through its history, or overwrites a file.
 */
export type ToolEffect = 'read' | 'write' | 'destructive';

export interface ToolDefinition {
  readonly name: string;
  readonly group: ToolGroup;
  readonly toolset: Toolset;
  /** Chinese display label, exactly as the spec gives it. */
  readonly label: string;
  /**
   * English display label for the studio's English mode: the term Photoshop's English UI uses where there is one
   * (Merge Visible, Gaussian Blur). Unique across tools. Not published to models (their schemas are the spec's).
   */
  readonly labelEn: string;
  /** Chinese description: what, on what, units, ranges and defaults. */
  readonly description: string;
  readonly parameters: ParametersSchema;
  readonly limits?: Readonly<Record<string, ParamLimits>>;
  readonly effect: ToolEffect;
  /**
   * Changes what later calls work on, though no document's content: the active layer (a tool that names a layer
   * makes it active, DESIGN.md), or what the session keeps beside its documents (the garment photo, the pieces'
   * analysis, the user's confirmations, a preview). Such a tool is not read-only to a client (MCP's
   * `readOnlyHint`), while its `effect` stays `read`: no undo step, and no new content to look at.
   */
  readonly changesContext?: boolean;
  /** Calling twice with the same arguments has the same effect as calling once. */
  readonly idempotent?: boolean;
  /** The tool may consult an outside service (a vision model). */
  readonly openWorld?: boolean;
}

/**
 * Keeps the literal types of a definition (names, enums, required lists) for the type-level mapping, and
 * appends the length bounds of `limits` to the parameters' descriptions.
 */
export function defineTool<const T extends ToolDefinition>(tool: T): T {
  return withStatedBounds(tool);
}
