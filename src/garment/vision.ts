/**
 * Vision: who decides piece parts and judges results. Two providers share one interface:
 * - builtin (default): classical CV, offline and deterministic;
 * - openai: an OpenAI-compatible chat model with image input, used only when ATELIER_VISION_BASE_URL and
 *   ATELIER_VISION_MODEL are set (ATELIER_VISION_API_KEY optional). It refines the builtin answer with ONE
 *   request per tool call; preview and apply always stay classical.
 */
import type { ImageOut } from '../engine/io/image-codec.js';
import { classifyPieces } from './builtin/pieces.js';
import type { Measure } from './builtin/score.js';
import { OpenAIVision } from './openai-vision.js';
import type { PieceInfo, PieceShape } from './types.js';

export interface IdentifyInput {
  readonly shapes: readonly PieceShape[];
  /** The pieces drawn with their numbers and layer names (for a model to look at). */
  readonly marks: () => Promise<ImageOut>;
}

export interface VerifyInput {
  readonly photo: () => Promise<ImageOut>;
  readonly canvas: () => Promise<ImageOut>;
  readonly measures: readonly Measure[];
  readonly classicalScore: number;
}

export interface VerifyOpinion {
  readonly score: number;
  readonly suggestions: readonly string[];
}

export interface Vision {
  readonly name: 'builtin' | 'openai';
  identify(input: IdentifyInput): Promise<PieceInfo[]>;
  /** A second opinion on the result; null when the provider has none (builtin: the measures are the verdict). */
  review(input: VerifyInput): Promise<VerifyOpinion | null>;
}

export const builtinVision: Vision = {
  name: 'builtin',
  async identify({ shapes }) {
    return classifyPieces(shapes);
  },
  async review() {
    return null;
  },
};

/** The provider the environment configures (read at each call, so a session picks up a change). */
export function selectVision(env: NodeJS.ProcessEnv = process.env): Vision {
  const baseUrl = env.ATELIER_VISION_BASE_URL?.trim();
  const model = env.ATELIER_VISION_MODEL?.trim();
  if (!baseUrl || !model) return builtinVision;
  const timeout = Number(env.ATELIER_VISION_TIMEOUT_MS);
  return new OpenAIVision({
    baseUrl,
    model,
    apiKey: env.ATELIER_VISION_API_KEY?.trim() || null,
    timeoutMs: Number.isFinite(timeout) && timeout > 0 ? timeout : 60_000,
  });
}
