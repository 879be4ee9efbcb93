/**
 * When a tool run from its form asks the designer first: only where something that exists is lost for good.
 * Every change to a document is a step in its history, so undo takes back a merge, a crop or a CMYK conversion,
 * and redo takes back an undo: none of these asks, and none is painted as dangerous. Saving a document to its
 * own file is what Save is for (Photoshop and Figma do not ask either; a new document's default name never
 * replaces a file). What asks is what every desktop app asks about: writing over a file that is already there
 * (Save As onto it), and closing a document whose changes are not saved (its history goes with it).
 */
import type { RegistryTool } from '../api/types.js';

export type Confirmation =
  | { readonly kind: 'replace'; readonly path: string }
  | { readonly kind: 'discard'; readonly name: string };

/** A workspace path as the server resolves it (`./a//b/../c.png` is `a/c.png`), to compare with the file list. */
export function workspacePath(path: string): string {
  const parts: string[] = [];
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') parts.pop();
    else parts.push(part);
  }
  return parts.join('/');
}

/**
 * The files a call writes: its workspace paths, when the registry says the tool may discard work
 * (`destructive` covers overwriting a file); a tool that only reads a path (open, place) writes none.
 */
export function pathsWritten(tool: RegistryTool, args: Readonly<Record<string, unknown>>): string[] {
  return pathParamsWritten(tool)
    .map((name) => args[name])
    .filter((value): value is string => typeof value === 'string' && value.trim() !== '');
}

/** The parameters naming a file the tool writes (see pathsWritten). */
export function pathParamsWritten(tool: RegistryTool): string[] {
  if (tool.effect !== 'destructive') return [];
  return Object.entries(tool.limits)
    .filter(([, limits]) => limits.format === 'path')
    .map(([name]) => name);
}

export interface ConfirmationContext {
  /** The session's files as the server has them now. */
  readonly files: readonly { readonly path: string }[];
  /** The active document, if any. */
  readonly active: { readonly name: string; readonly unsaved_changes: boolean } | null;
  /** The call closes the active document. */
  readonly closes: boolean;
}

export function confirmationFor(
  tool: RegistryTool,
  args: Readonly<Record<string, unknown>>,
  context: ConfirmationContext,
): Confirmation | null {
  const existing = new Set(context.files.map((f) => workspacePath(f.path)));
  const replaced = pathsWritten(tool, args).find((p) => existing.has(workspacePath(p)));
  if (replaced !== undefined) return { kind: 'replace', path: replaced };
  // Closing saves first only when its switch (whether to save) is on.
  const saves = Object.entries(tool.parameters.properties).some(
    ([name, schema]) => schema.type === 'boolean' && args[name] === true,
  );
  if (context.closes && context.active?.unsaved_changes && !saves) {
    return { kind: 'discard', name: context.active.name };
  }
  return null;
}
