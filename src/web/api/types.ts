/** The shapes the studio reads from the HTTP API (see the contract in README and src/calls/snapshot.ts). */
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

export interface LayerNode {
  readonly id: number;
  readonly name: string;
  readonly type: string;
  readonly visible: boolean;
  readonly opacity: number;
  readonly blend_mode: string;
  readonly locked: boolean;
  readonly clipped?: boolean;
  readonly mask?: boolean;
  readonly children?: readonly LayerNode[];
}

export interface DocumentInfo {
  readonly name: string;
  readonly width: number;
  readonly height: number;
  readonly resolution: number;
  readonly mode: 'RGB' | 'CMYK';
  readonly path: string | null;
  readonly unsaved_changes: boolean;
  readonly active: boolean;
}

export interface ActiveDocument extends DocumentInfo {
  readonly active_layer: string | null;
  readonly layers: readonly LayerNode[];
  readonly selected_layers: readonly string[];
  readonly has_selection: boolean;
  readonly history: { readonly labels: readonly string[]; readonly index: number };
}

export interface GarmentPiece {
  readonly name: string;
  readonly part: string;
  readonly part_label: string;
  readonly type: string | null;
  readonly color: string | null;
}

export interface SessionState {
  readonly documents: readonly DocumentInfo[];
  readonly active: ActiveDocument | null;
  readonly garment: {
    readonly photo: string | null;
    readonly pieces: readonly GarmentPiece[];
    readonly previewed: boolean;
    readonly applied: boolean;
  };
}

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

/** One event of a chat turn or a streamed tool-call run (`data: {json}` lines). */
export type ChatEvent =
  | { readonly type: 'user'; readonly text: string }
  | { readonly type: 'assistant_delta'; readonly text: string }
  | {
      readonly type: 'tool_call';
      readonly id: string;
      readonly name: string;
      readonly label: string;
      readonly arguments: unknown;
    }
  | { readonly type: 'progress'; readonly id: string; readonly stage: string; readonly fraction?: number }
  | {
      readonly type: 'tool_result';
      readonly id: string;
      readonly name: string;
      readonly ok: boolean;
      readonly result: unknown;
      readonly images?: readonly ResultImage[];
    }
  | { readonly type: 'assistant'; readonly text: string }
  | { readonly type: 'done'; readonly steps?: number }
  | { readonly type: 'error'; readonly code: string; readonly message: string };
