/**
 * What a surface may do with a session, wherever the session runs: the `Session` itself on the calling thread, or
 * a proxy to a session hosted on a worker thread (src/service/worker-session.ts). Only plain data crosses it —
 * tool calls, results, snapshots, listings, encoded images — never a function over the editor, since a
 * session on another thread cannot run one.
 */
import type { Workspace } from '../engine/workspace.js';
import type { Rendered } from './render.js';
import type { ToolResult } from './result.js';
import type { CallOptions } from './session.js';
import type { SessionSnapshot } from './snapshot.js';
import type { ThumbnailOf } from './thumbnail.js';

/** An open document as `GET /v1/sessions/:id` lists it. */
export interface DocumentListing {
  readonly name: string;
  readonly width: number;
  readonly height: number;
  readonly path: string | null;
  readonly unsaved_changes: boolean;
}

export interface SessionHandle {
  /** The folder every path is relative to. */
  readonly workspace: Workspace;
  /** The uploaded garment photo the garment tools read, as of the last call or photo change that completed. */
  readonly garmentPhoto: string | null;
  /** Runs one tool call after every call already queued. Never rejects: failures are results. */
  call(toolCall: unknown, opts?: CallOptions): Promise<ToolResult>;
  /** Sets the garment photo after every call already queued; rejects when it cannot be journaled. */
  setGarmentPhoto(path: string | null): Promise<void>;
  /** What the session holds, after every call already queued (beside a call that changes none of it). */
  snapshot(): Promise<SessionSnapshot>;
  /** The open documents, after every call already queued (beside a call that changes no document). */
  documents(): Promise<DocumentListing[]>;
  /** The `#rrggbb` press inks (`cmyk(…)`) show as in the active document; undefined when the value is not inks. */
  inkPreview(value: string): Promise<string | undefined>;
  /**
   * The open document `name` as PNG within a `max` square, after every call already queued (beside a call that
   * changes no document); the editor's `not_found` error when there is none.
   */
  render(name: string, max: number): Promise<Rendered>;
  /**
   * The thumbnail of layer `layer` (by id) of the open document `name` within a `max` square (thumbnail.ts); the
   * editor's `not_found` when there is no such document or layer, `unsupported` for a group or a text layer.
   */
  thumbnail(name: string, layer: number, max: number, of?: ThumbnailOf): Promise<Rendered>;
  /** The id of the layer a click at document pixel (x, y) of open document `name` selects (layer-at.ts), or null. */
  layerAt(name: string, x: number, y: number): Promise<number | null>;
}
