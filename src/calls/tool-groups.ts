/**
 * Which tools a surface offers (a variant, or ATELIER_MODEL_TOOLS for the agent) and which of them stand in for
 * one another. Imports nothing, so the CLI's light start (the agent's prompt) can read it without the engine.
 */

/** The names of the tools a caller is given: what it is told and pointed at names no other. */
export type OfferedTools = ReadonlySet<string>;

/** Tools that list a document's layers: where a text would name one the caller lacks, another offered one does. */
export const LAYER_LISTERS: readonly string[] = ['list_all_layer_names', 'get_layer_structure'];
