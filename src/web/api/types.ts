/** The shapes the studio reads from the HTTP API (see the contract in README and src/calls/snapshot.ts). */
import type { ChatEventOf } from '../../agent/event-shapes.js';
import type { SessionSnapshot as SessionState } from '../../calls/snapshot-types.js';
import type { ParametersSchema, ParamLimits, ToolEffect, ToolGroup } from '../../registry/types.js';

export interface RegistryTool {
  readonly name: string;
  readonly group: ToolGroup;
  readonly label: string;
  readonly description: string;
  readonly parameters: ParametersSchema;
  readonly limits: Readonly<Record<string, ParamLimits>>;
  readonly effect: ToolEffect;
}

export interface Registry {
  readonly groups: readonly { readonly id: ToolGroup; readonly label: string }[];
  readonly tools: readonly RegistryTool[];
}

export type ModelInfo =
  | { readonly configured: false }
  | {
      readonly configured: true;
      readonly model: { base_url: string; model: string; vision: boolean; tools: string; max_steps: number };
    };

export type {
  ActiveDocumentSnapshot as ActiveDocument,
  DocumentSnapshot as DocumentInfo,
  LayerNode,
  SessionSnapshot as SessionState,
} from '../../calls/snapshot-types.js';

/** A piece `identify_pieces` found, with its proposed type and colour. */
export type GarmentPiece = SessionState['garment']['pieces'][number];

export interface SessionFile {
  readonly path: string;
  readonly bytes: number;
}

export interface ResultImage {
  readonly url: string;
  readonly mime: string;
  readonly caption?: string;
}

export interface ToolError {
  readonly code: string;
  readonly message: string;
  readonly hint?: string;
}

/** One event of a chat turn or a streamed tool-call run (`data: {json}` lines), images as links. */
export type ChatEvent = ChatEventOf<ResultImage>;
