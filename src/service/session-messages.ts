/**
 * What the main thread and a session worker say to each other (worker-session.ts ↔ session-worker.ts). Every
 * request carries a number its answer repeats; a call's progress comes as messages of its own before the answer.
 */
import type { DocumentListing } from '../calls/handle.js';
import type { ToolResult } from '../calls/result.js';
import type { Progress } from '../calls/session.js';
import type { SessionSnapshot } from '../calls/snapshot.js';
import type { ThumbnailOf } from '../calls/thumbnail.js';
import type { CloseReason, HostOptions } from './hosted-session.js';

export type Request =
  | { readonly op: 'open'; readonly host: HostOptions }
  | { readonly op: 'recover'; readonly host: Omit<HostOptions, 'kind' | 'createdAt'> }
  | {
      readonly op: 'call';
      readonly id: string;
      readonly call: unknown;
      readonly progress: boolean;
      readonly gesture?: string;
    }
  | { readonly op: 'garment_photo'; readonly id: string; readonly path: string | null }
  | { readonly op: 'snapshot'; readonly id: string }
  | { readonly op: 'documents'; readonly id: string }
  | { readonly op: 'ink'; readonly id: string; readonly value: string }
  | { readonly op: 'render'; readonly id: string; readonly name: string; readonly max: number }
  | {
      readonly op: 'thumbnail';
      readonly id: string;
      readonly name: string;
      readonly layer: number;
      readonly max: number;
      readonly of: ThumbnailOf;
    }
  | {
      readonly op: 'layer_at';
      readonly id: string;
      readonly name: string;
      readonly x: number;
      readonly y: number;
    }
  | { readonly op: 'heartbeat'; readonly id: string }
  | { readonly op: 'remove_file'; readonly id: string; readonly path: string }
  | { readonly op: 'close'; readonly id: string; readonly why: CloseReason }
  /** After a deleted session's `close`: answered once no call of it runs any more (none can write then). */
  | { readonly op: 'ended'; readonly id: string };

/** An error as it crosses threads: enough to rebuild the classes the surfaces tell apart. */
export type WireError =
  | {
      readonly kind: 'editor';
      readonly code: string;
      readonly message: string;
      readonly hint?: string;
      readonly details?: unknown;
    }
  | { readonly kind: 'held'; readonly pid: number; readonly host: string }
  | { readonly kind: 'other'; readonly message: string };

/** A render or a thumbnail as it crosses threads (render.ts `Rendered`, its PNG handed over). */
interface RenderedImage {
  readonly png: Uint8Array;
  readonly width: number;
  readonly height: number;
  readonly documentWidth: number;
  readonly documentHeight: number;
}

export type Answer =
  | { readonly op: 'open'; readonly garmentPhoto: string | null }
  | {
      readonly op: 'recover';
      readonly kind: string;
      readonly createdAt: number;
      readonly report: string;
      readonly garmentPhoto: string | null;
    }
  | { readonly op: 'call'; readonly result: ToolResult; readonly garmentPhoto: string | null }
  | { readonly op: 'garment_photo' }
  | { readonly op: 'snapshot'; readonly snapshot: SessionSnapshot }
  | { readonly op: 'documents'; readonly documents: DocumentListing[] }
  | { readonly op: 'ink'; readonly hex: string | null }
  | ({ readonly op: 'render' } & RenderedImage)
  | ({ readonly op: 'thumbnail' } & RenderedImage)
  | { readonly op: 'layer_at'; readonly layer: number | null }
  | { readonly op: 'heartbeat' }
  | { readonly op: 'remove_file' }
  | { readonly op: 'close' }
  | { readonly op: 'ended' };

export type ToWorker =
  | { readonly seq: number; readonly request: Request }
  /** The caller gave up on the call request `cancel` (CallOptions.signal). */
  | { readonly cancel: number }
  /** The thread is no longer wanted: it cancels what runs and ends itself (worker-session.ts `stop`). */
  | { readonly stop: true };

export type FromWorker =
  | { readonly seq: number; readonly answer: Answer }
  | { readonly seq: number; readonly error: WireError }
  | { readonly seq: number; readonly progress: Progress }
  | { readonly log: string };
