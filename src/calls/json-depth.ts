/**
 * How deep a call's JSON may nest. Tool arguments are a few levels deep; JSON nested thousands deep parses (the
 * parser does not recurse) but overflows the stack of whatever walks it after: the copy to a session's thread,
 * an event stream's encoder, a history served back as JSON.
 */
export const MAX_JSON_DEPTH = 64;

/** Whether `value` nests more than `limit` arrays or objects deep (walked without recursion). */
export function depthOver(value: unknown, limit = MAX_JSON_DEPTH): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth > limit) return true;
    for (const child of Object.values(v)) stack.push([child, depth + 1]);
  }
  return false;
}
