/**
 * What a failure says to the designer. The server words turn and tool failures, and its HTTP errors (each with a
 * stable English code beside), in Chinese for them, but not everything that reaches the studio is: the
 * browser's own words for a request that failed ("Failed to fetch"), an older server's English HTTP errors, and
 * a conversation restored from an older transcript (chat.jsonl), which keeps the raw error text older servers
 * wrote into it ("内部错误：ENOENT: no such file or directory, open '/srv/…'"). Such text is shown as the
 * studio's own words for the failure's code, with the original kept under 详细信息, so nothing is lost for
 * whoever debugs it.
 */
import type { MessageKey, Translate } from '../i18n.js';

/** The session this tab worked on is gone (purged after its retention, or deleted): the studio's own code. */
export const SESSION_GONE = 'session_gone';

/**
 * The message of a SESSION_GONE notice when the panes' catching up found the session gone, not an action the
 * designer took: nothing was refused, so the notice does not say that something was not run.
 */
export const SESSION_GONE_FOUND = 'session_gone_found';

/**
 * The session the address asked for (`/?session=<id>`) is not there, and a new one was opened: the studio's own
 * code, its message the id asked for.
 */
export const SESSION_NOT_FOUND = 'session_not_found';

/** Failures the studio always words itself: the browser's words for them are English, or it found them itself. */
const OWN_WORDS: Readonly<Record<string, MessageKey>> = {
  network: 'notice.network',
  [SESSION_GONE]: 'notice.session_gone',
};

/**
 * The studio's words for a failure whose own text is not the designer's, by code. A `busy` the server words says
 * which (a reply running, the session served by another process, too many uploads): its text is shown.
 */
const BY_CODE: Readonly<Record<string, MessageKey>> = {
  busy: 'notice.busy',
  internal: 'failure.internal',
  bad_request: 'failure.bad_request',
  not_found: 'failure.not_found',
  payload_too_large: 'failure.payload_too_large',
  unauthorized: 'failure.unauthorized',
  cancelled: 'failure.cancelled',
  interrupted: 'failure.interrupted',
  max_steps: 'failure.max_steps',
};

const CJK = /[\u3400-\u9fff]/;
/**
 * What a designer-worded message quotes on purpose, left out of the test: names in quotes (a layer called
 * “Summer Sale Title”, a file) and a model service's own explanation of a refusal (model-errors.ts).
 */
const QUOTED = /“[^”]*”|「[^」]*」|『[^』]*』|"[^"]*"|服务说明：[^。]*/g;
/** Signs of text written for a programmer: a path, a stack frame, an error class or errno, English prose. */
const TECHNICAL = [
  /(?:^|[\s"'(（：:=])\/[\w.-]+\//,
  /\b[A-Za-z]:\\/,
  /\bat \S.*:\d+:\d+/,
  /\b[A-Z]\w*Error\b/,
  /\bE[A-Z]{2,}:/,
  /[A-Za-z]+(?:[ ,'’()-]+[A-Za-z]+){3,}/,
];

/** Whether `message` is written for the designer: Chinese, with nothing in it written for a programmer. */
export function designerWorded(message: string): boolean {
  if (!CJK.test(message)) return false;
  const own = message.replace(QUOTED, '');
  return !TECHNICAL.some((sign) => sign.test(own));
}

export interface FailureWords {
  /** What the designer reads. */
  readonly text: string;
  /** The failure's own text, when `text` is the studio's words in its place. */
  readonly detail?: string;
}

export function failureWords(t: Translate, code: string, message: string): FailureWords {
  if (code === SESSION_GONE && message === SESSION_GONE_FOUND)
    return { text: t('notice.session_gone_found') };
  if (code === SESSION_NOT_FOUND) return { text: t('notice.session_not_found', { id: message }) };
  const own = OWN_WORDS[code];
  if (own) return { text: t(own) };
  if (designerWorded(message)) return { text: message };
  const key = BY_CODE[code] ?? (code.startsWith('model_') ? 'failure.model' : 'failure.other');
  return { text: t(key), detail: message };
}
