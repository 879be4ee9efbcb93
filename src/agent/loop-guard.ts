/**
 * The guard against the identify ↔ preview loop a peer product documents as its failure: within one user turn,
 * a garment step that already ran is refused, without running, until a call changes a document, the user's
 * confirmed parts or the garment photo — run again on the same input it can only give the same answer. A new
 * user message starts afresh (the user may ask for the preview again).
 */
import { findTool } from '../registry/index.js';

/** The garment steps whose repetition is the loop. */
export const GUARDED_STEPS: readonly string[] = ['identify_pieces', 'generate_garment_preview'];

/** Calls that change no document but what those steps read: the parts the user confirmed. */
const NEW_GARMENT_INPUT: readonly string[] = ['confirm_piece_parts'];

export interface Refusal {
  readonly ok: false;
  readonly error: { readonly code: 'invalid_state'; readonly message: string; readonly hint: string };
}

export class LoopGuard {
  /** Bumped by every successful document-changing call, by confirmed parts and by a new garment photo. */
  private epoch = 0;
  private photo: string | null = null;
  private readonly ranAt = new Map<string, number>();

  /** Starts a user turn: everything may run once more. */
  reset(photo: string | null): void {
    this.ranAt.clear();
    this.photo = photo;
  }

  /** A refusal when `name` would repeat a garment step on unchanged input, else null. */
  check(name: string, photo: string | null): Refusal | null {
    this.notePhoto(photo);
    if (!GUARDED_STEPS.includes(name) || this.ranAt.get(name) !== this.epoch) return null;
    const label = findTool(name)?.label ?? name;
    const previewDone = this.ranAt.get('generate_garment_preview') === this.epoch;
    return {
      ok: false,
      error: {
        code: 'invalid_state',
        message: `${name}（${label}）本轮已经运行过，之后文档和服装照片都没有变化，重复调用只会得到同样的结果，已拒绝（未执行）。`,
        hint: previewDone
          ? '预览已生成：把它交给用户并等待确认，用户确认后再调用 extract_and_apply_all_pieces；不要再次识别或预览。'
          : '使用上一次的结果继续下一步（identify_pieces 之后是 generate_garment_preview）；如需重新识别，先修改文档或请用户上传新照片。',
      },
    };
  }

  /** Records a call's outcome: a successful change of a document opens a new epoch. */
  record(name: string, ok: boolean, photo: string | null): void {
    this.notePhoto(photo);
    if (!ok) return;
    const effect = findTool(name)?.effect;
    if ((effect !== undefined && effect !== 'read') || NEW_GARMENT_INPUT.includes(name)) this.epoch++;
    if (GUARDED_STEPS.includes(name)) this.ranAt.set(name, this.epoch);
  }

  private notePhoto(photo: string | null): void {
    if (photo !== this.photo) {
      this.photo = photo;
      this.epoch++;
    }
  }
}

/** Failures of one call (same tool, same arguments) in one user turn after which it is not run again. */
export const REPEATED_FAILURE_LIMIT = 3;

/** The call's tool and arguments as one key: arguments that are JSON compare by value, whatever their spacing. */
function callKey(name: string, args: string): string {
  try {
    return `${name}\n${JSON.stringify(sorted(JSON.parse(args)))}`;
  } catch {
    return `${name}\n${args}`;
  }
}

function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => [k, sorted(v)]),
  );
}

/**
 * A model that answers a failed call by sending it again unchanged (as weaker models do, whatever the hint says)
 * would spend the turn's every request on it and end at the step limit, told to "continue". Within one user turn,
 * a call that failed REPEATED_FAILURE_LIMIT times with the same arguments is not run again, and the turn stops
 * saying why.
 */
export class RepeatedFailures {
  private readonly failures = new Map<string, { count: number; message: string }>();
  /** The call that reached the limit this turn, or null. */
  private reached: { name: string; message: string } | null = null;

  /** Starts a user turn. */
  reset(): void {
    this.failures.clear();
    this.reached = null;
  }

  /** A refusal when the call has failed too often this turn, else null: the call is not run. */
  check(name: string, args: string): Refusal | null {
    const known = this.failures.get(callKey(name, args));
    if (!known || known.count < REPEATED_FAILURE_LIMIT) return null;
    return {
      ok: false,
      error: {
        code: 'invalid_state',
        message: `这个调用（同样的工具和参数）本轮已经失败 ${known.count} 次，没有再执行：${known.message}`,
        hint: '不要再发送这个调用。把遇到的问题告诉用户，请用户给出需要的信息。',
      },
    };
  }

  /** Records a call's outcome; `message` is its error's. */
  record(name: string, args: string, ok: boolean, message: string): void {
    if (ok) return;
    const key = callKey(name, args);
    const count = (this.failures.get(key)?.count ?? 0) + 1;
    this.failures.set(key, { count, message });
    if (count >= REPEATED_FAILURE_LIMIT) this.reached ??= { name, message };
  }

  /** The call that failed REPEATED_FAILURE_LIMIT times this turn, or null. */
  get stuck(): { readonly name: string; readonly message: string } | null {
    return this.reached;
  }
}
