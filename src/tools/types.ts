/** What a tool handler receives and returns. Argument types come from the registry, never restated. */
import type { Transaction } from '../engine/editor.js';
import type { ImageOut } from '../engine/io/image-codec.js';
import type { Workspace } from '../engine/workspace.js';
import type { GarmentMemory } from '../garment/types.js';
import type { ArgsOf, ToolName } from '../registry/index.js';

export type { ImageOut } from '../engine/io/image-codec.js';

/** A handler's result fields; the protocol adds `ok: true`. */
export type Payload = { readonly [key: string]: unknown; readonly images?: readonly ImageOut[] };

/**
 * Per-session data beside the documents: the garment photo and the garment tools' memory. Handlers read it and
 * stage changes; the session applies staged changes only when the call succeeds.
 */
export interface SessionData {
  /** The uploaded garment photo (workspace-relative), or null. */
  readonly garmentPhoto: string | null;
  readonly garment: GarmentMemory;
  stage(change: { readonly garmentPhoto?: string | null; readonly garment?: GarmentMemory }): void;
}

export interface ToolContext {
  readonly tx: Transaction;
  readonly workspace: Workspace;
  readonly session: SessionData;
  /** Adds a note to the result (e.g. several layers share the name that was asked for). */
  warn(message: string): void;
  /** Reports a stage of a long call (Chinese, short), with how far along it is (0..1) when known. */
  progress(stage: string, fraction?: number): void;
}

export type Handler<N extends ToolName> = (args: ArgsOf<N>, ctx: ToolContext) => Payload | Promise<Payload>;

/** Every tool's handler. Total: a tool defined in the registry without a handler does not compile. */
export type HandlerTable = { readonly [N in ToolName]: Handler<N> };

/** One module's share of the table (`satisfies ToolHandlers` keeps each handler typed from its tool). */
export type ToolHandlers = Partial<HandlerTable>;
