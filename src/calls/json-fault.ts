/**
 * Where a text JSON.parse refused goes wrong, and why, in Chinese. V8's own reason is an English sentence whose
 * wording changes between Node versions, and it tells a model nothing it can act on in Chinese; this scan walks
 * the JSON grammar again (only after JSON.parse failed, so a valid call costs nothing) and points at the first
 * character JSON cannot accept — the offset V8 reports where it reports one.
 */

export interface JsonFault {
  /** Offset (UTF-16 code units) of the first character JSON cannot accept; the text's length when it ends too soon. */
  readonly at: number;
  /** Why, in Chinese, without the location. */
  readonly reason: string;
}

const SHOWN_VALUE = '一个值（"字符串"、数字、{对象}、[数组]、true、false 或 null）';

function isSpace(c: string | undefined): boolean {
  return c === ' ' || c === '\t' || c === '\n' || c === '\r';
}

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= '0' && c <= '9';
}

/** The character at `i` as a reader sees it: a whole emoji, a named invisible one. */
function shown(text: string, i: number): string {
  const c = String.fromCodePoint(text.codePointAt(i) ?? 0);
  if (c === ' ') return '空格';
  if (c < ' ' || c === '\u007f')
    return `控制字符 U+${c.charCodeAt(0).toString(16).padStart(4, '0').toUpperCase()}`;
  return `“${c}”`;
}

/** A fault at `i` for a character that cannot start a value (or a key, `key` true). */
function unexpected(text: string, i: number, key: boolean, afterComma: boolean): JsonFault {
  const c = text[i];
  if (afterComma && (c === '}' || c === ']')) {
    return { at: i, reason: `最后一项之后多了逗号：JSON 不允许“,”紧接“${c}”` };
  }
  if (c === "'") return { at: i, reason: 'JSON 的字符串和属性名须用双引号“"”，不能用单引号' };
  if (key) return { at: i, reason: `应为用双引号括起的属性名，而不是${shown(text, i)}` };
  return { at: i, reason: `应为${SHOWN_VALUE}，而不是${shown(text, i)}` };
}

/** Reads the string starting at the quote at `start`; its end, or the fault in it. */
function readString(text: string, start: number): number | JsonFault {
  let i = start + 1;
  for (;;) {
    if (i >= text.length)
      return { at: text.length, reason: '字符串没有结束：缺少右边的双引号“"”（参数可能被截断）' };
    const c = text[i]!;
    if (c === '"') return i + 1;
    if (c === '\n') return { at: i, reason: '字符串中不能直接换行：换行须写成 \\n' };
    if (c === '\t') return { at: i, reason: '字符串中不能直接写制表符：须写成 \\t' };
    if (c < ' ') return { at: i, reason: `字符串中不能直接写${shown(text, i)}：须写成 \\u 转义` };
    if (c === '\\') {
      const e = text[i + 1];
      if (e === undefined)
        return { at: text.length, reason: '字符串没有结束：缺少右边的双引号“"”（参数可能被截断）' };
      if (e === 'u') {
        for (let k = i + 2; k < i + 6; k++) {
          if (!/^[0-9a-fA-F]$/.test(text[k] ?? '')) {
            return { at: k, reason: '\\u 之后应为 4 位十六进制数字（如 \\u4e2d）' };
          }
        }
        i += 6;
        continue;
      }
      if (!'"\\/bfnrt'.includes(e)) {
        return { at: i + 1, reason: `无效的转义“\\${e}”：可用 \\" \\\\ \\/ \\b \\f \\n \\r \\t 和 \\uXXXX` };
      }
      i += 2;
      continue;
    }
    i++;
  }
}

/** Reads the number starting at `start`; its end, or the fault in it. */
function readNumber(text: string, start: number): number | JsonFault {
  let i = start;
  if (text[i] === '-') i++;
  if (text[i] === '0') i++;
  else if (isDigit(text[i])) while (isDigit(text[i])) i++;
  else return { at: i, reason: '负号“-”之后应为数字' };
  if (text[i] === '.') {
    i++;
    if (!isDigit(text[i])) return { at: i, reason: '小数点之后应为数字' };
    while (isDigit(text[i])) i++;
  }
  if (text[i] === 'e' || text[i] === 'E') {
    i++;
    if (text[i] === '+' || text[i] === '-') i++;
    if (!isDigit(text[i])) return { at: i, reason: '指数部分（e 之后）缺少数字' };
    while (isDigit(text[i])) i++;
  }
  return i;
}

/** Reads `true`, `false` or `null` starting at `start`; its end, or the fault in it. */
function readWord(text: string, start: number, word: string): number | JsonFault {
  for (let k = 0; k < word.length; k++) {
    const i = start + k;
    if (i >= text.length) {
      return { at: i, reason: `“${text.slice(start)}”没有写完：应为 ${word}（参数可能被截断）` };
    }
    if (text[i] !== word[k]) {
      // The whole word, not its first wrong letter: "this is not json" is not a misspelt true.
      const shownWord = /^[\p{L}\p{N}_]{1,20}/u.exec(text.slice(start))![0];
      return { at: i, reason: `“${shownWord}”不是 JSON 的值：应为${SHOWN_VALUE}` };
    }
  }
  return start + word.length;
}

/** The fault in `text`, or null when it is valid JSON. Walks without recursion: any depth, any length. */
export function jsonFault(text: string): JsonFault | null {
  const open: ('}' | ']')[] = [];
  // What comes next: a value, an object's key, the colon after one, or what follows a value.
  let want: 'value' | 'key' | 'colon' | 'next' = 'value';
  /** Just after `{` or `[`, where the container may close at once. */
  let first = false;
  let afterComma = false;
  let i = 0;
  for (;;) {
    while (isSpace(text[i])) i++;
    const c = text[i];
    if (c === undefined) {
      if (want === 'next' && open.length === 0) return null;
      if (open.length === 0) return { at: i, reason: 'JSON 是空的' };
      const missing = [...open].reverse().join('');
      return { at: i, reason: `JSON 没有写完：还缺少结尾的“${missing}”（参数可能被截断）` };
    }
    if (want === 'next') {
      const close = open[open.length - 1];
      if (close === undefined)
        return { at: i, reason: 'JSON 在此之前已经完整，后面却还有内容（多个值须放进数组或对象）' };
      if (c === ',') {
        want = close === '}' ? 'key' : 'value';
        afterComma = true;
        i++;
      } else if (c === close) {
        open.pop();
        i++;
      } else {
        const what = close === '}' ? '属性值' : '数组元素';
        return { at: i, reason: `${what}之后应为逗号“,”或“${close}”，而不是${shown(text, i)}` };
      }
      continue;
    }
    if (want === 'colon') {
      if (c !== ':') return { at: i, reason: `属性名之后应为冒号“:”，而不是${shown(text, i)}` };
      want = 'value';
      i++;
      continue;
    }
    if (first && c === open[open.length - 1]) {
      open.pop();
      first = false;
      want = 'next';
      i++;
      continue;
    }
    first = false;
    if (want === 'key') {
      if (c !== '"') return unexpected(text, i, true, afterComma);
      const end = readString(text, i);
      if (typeof end !== 'number') return end;
      i = end;
      want = 'colon';
      afterComma = false;
      continue;
    }
    let end: number | JsonFault;
    if (c === '{' || c === '[') {
      open.push(c === '{' ? '}' : ']');
      want = c === '{' ? 'key' : 'value';
      first = true;
      afterComma = false;
      i++;
      continue;
    }
    if (c === '"') end = readString(text, i);
    else if (c === '-' || isDigit(c)) end = readNumber(text, i);
    else if (c === 't') end = readWord(text, i, 'true');
    else if (c === 'f') end = readWord(text, i, 'false');
    else if (c === 'n') end = readWord(text, i, 'null');
    else return unexpected(text, i, false, afterComma);
    if (typeof end !== 'number') return end;
    i = end;
    want = 'next';
    afterComma = false;
  }
}

const BEFORE = 24;
const AFTER = 16;

function visible(s: string): string {
  let out = '';
  for (const c of s) out += c === '\n' ? '↵' : c < ' ' || c === '\u007f' ? ' ' : c;
  return out;
}

/**
 * Where `text` (refused by JSON.parse) broke, for whoever wrote it: the place (character, or line and column when
 * it has several lines), the reason, and the text around it with the place marked, in 「」 so the studio reads the
 * quoted JSON as a quotation, not as English prose.
 */
export function describeJsonFault(text: string): string {
  const fault = jsonFault(text);
  if (!fault) return '无法解析';
  const before = Array.from(text.slice(Math.max(0, fault.at - 4 * BEFORE), fault.at));
  const after = Array.from(text.slice(fault.at, fault.at + 4 * AFTER));
  const lead = fault.at > 0 && before.length > BEFORE ? '…' : '';
  const tail = after.length > AFTER || fault.at + 4 * AFTER < text.length ? '…' : '';
  const excerpt = `${lead}${visible(before.slice(-BEFORE).join(''))}⟨此处⟩${visible(after.slice(0, AFTER).join(''))}${tail}`;
  const upTo = text.slice(0, fault.at);
  const line = upTo.split('\n').length;
  const column = Array.from(upTo.slice(upTo.lastIndexOf('\n') + 1)).length + 1;
  const place =
    fault.at >= text.length
      ? '在末尾'
      : text.includes('\n')
        ? `在第 ${line} 行第 ${column} 列`
        : `在第 ${column} 个字符处`;
  return `${place}，${fault.reason}。出错处：「${excerpt}」`;
}
