/**
 * Vision: who decides piece parts and judges results. Two providers share one interface:
 * - builtin (default): classical CV, offline and deterministic;
 * - openai: an OpenAI-compatible chat model with image input, used only when ATELIER_VISION_BASE_URL and
 *   ATELIER_VISION_MODEL are set (ATELIER_VISION_API_KEY optional). It refines the builtin answer with ONE
 *   request per tool call; preview and apply always stay classical. When the model cannot be reached or answers
 *   nonsense, the call goes on with the builtin answer and says so in its warnings (consult below).
 */
import { EditorError } from '../engine/errors.js';
import type { ImageOut } from '../engine/io/image-codec.js';
import { classifyPieces } from './builtin/pieces.js';
import type { Measure } from './builtin/score.js';
import { OpenAIVision } from './openai-vision.js';
import type { Part, PieceInfo, PieceShape } from './types.js';

export interface IdentifyInput {
  readonly shapes: readonly PieceShape[];
  /** The pieces drawn with their numbers and layer names (for a model to look at). */
  readonly marks: () => Promise<ImageOut>;
  /** Parts the user confirmed (confirm_piece_parts), by layer id: kept as they are, the rest decided around them. */
  readonly confirmed?: ReadonlyMap<number, Part>;
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
  async identify({ shapes, confirmed }) {
    return classifyPieces(shapes, undefined, confirmed);
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

/** What a provider answered, and which provider it was in the end. */
export interface Consulted<T> {
  readonly value: T;
  readonly provider: Vision['name'];
}

/**
 * Asks the configured provider; when it is the model and the model fails (unreachable, HTTP error, an answer
 * that is not the JSON asked for), warns with why and answers with the builtin provider instead. Errors that
 * are not the model's (a bug, a cancelled call) still fail the call.
 */
export async function consult<T>(
  vision: Vision,
  ask: (v: Vision) => Promise<T>,
  warn: (message: string) => void,
): Promise<Consulted<T>> {
  if (vision.name === 'builtin') return { value: await ask(vision), provider: 'builtin' };
  try {
    return { value: await ask(vision), provider: vision.name };
  } catch (err) {
    if (!(err instanceof EditorError) || (err.code !== 'io_error' && err.code !== 'unsupported')) throw err;
    warn(`视觉模型不可用，已改用内置分析：${err.message}${err.hint ? `（${err.hint}）` : ''}`);
    return { value: await ask(builtinVision), provider: 'builtin' };
  }
}
