/**
 * A document's history: immutable states, one per step, sharing unchanged layers and buffers. Undo and
 * redo move an index; a new step after an undo drops the steps that were undone, as in Photoshop.
 */
import { HISTORY_MAX_STEPS } from '../registry/bounds.js';
import type { DocState } from './model.js';

export interface History {
  readonly states: readonly DocState[];
  /** `labels[i]` names the step that produced `states[i]` (the first is the opening step). */
  readonly labels: readonly string[];
  readonly index: number;
}

/**
 * Steps kept per document; older ones are dropped (their buffers go when nothing else shares them). The number is
 * the registry's, so the undo tool's description states the same.
 */
export const MAX_STEPS = HISTORY_MAX_STEPS;

export function startHistory(state: DocState, label: string): History {
  return { states: [state], labels: [label], index: 0 };
}

export function current(h: History): DocState {
  return h.states[h.index]!;
}

export function push(h: History, state: DocState, label: string): History {
  const states = [...h.states.slice(0, h.index + 1), state];
  const labels = [...h.labels.slice(0, h.index + 1), label];
  const drop = Math.max(0, states.length - MAX_STEPS);
  return { states: states.slice(drop), labels: labels.slice(drop), index: states.length - 1 - drop };
}

/** Replaces the current state without a step (layer or pixel selection changes, which are not history). */
export function replaceCurrent(h: History, state: DocState): History {
  const states = [...h.states];
  states[h.index] = state;
  return { ...h, states };
}

export function move(h: History, delta: number): { history: History; moved: number } {
  const index = Math.min(h.states.length - 1, Math.max(0, h.index + delta));
  return { history: { ...h, index }, moved: Math.abs(index - h.index) };
}
