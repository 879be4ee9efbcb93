/**
 * The tools a surface offers (the agent's ATELIER_MODEL_TOOLS, an MCP server's variant may give fewer than the
 * registry holds), and everything a caller is pointed at kept within them. The session answers for every registry
 * tool: its "did you mean" names and the hints of its failures may name a tool this caller was never offered,
 * which it then calls in vain. A surface answers an unknown name itself, with suggestions among the offered
 * tools, and rewrites what a result says to do next (derived from the registry and the offered set, not from a
 * second list of hints).
 */
import { closest } from '../engine/names.js';
import { allTools, findTool, TOOL_NAME_MAX_LENGTH } from '../registry/index.js';
import { LAYER_LISTERS, type OfferedTools } from './tool-groups.js';

const STAND_INS: readonly (readonly string[])[] = [LAYER_LISTERS];

/** Said instead of a hint none of whose advice the offered tools can follow. */
export const NO_OFFERED_WAY = '本次对话提供的工具做不到这一步：不要重试，把情况告诉用户。';

/** Words shaped like a tool name (snake_case); only those the registry knows count. */
const TOOL_WORD = /[a-z][a-z0-9]*(?:_[a-z0-9]+)+/g;

function unoffered(text: string, offered: OfferedTools): string[] {
  return [...text.matchAll(TOOL_WORD)]
    .map((m) => m[0])
    .filter((name) => findTool(name) !== undefined && !offered.has(name));
}

function startsWithTool(text: string): boolean {
  const word = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)+/.exec(text);
  return word !== null && findTool(word[0]) !== undefined;
}

/** The text with each tool it names but the model lacks replaced by an offered one that does the same job. */
function standIn(text: string, offered: OfferedTools): string {
  return text.replace(TOOL_WORD, (name) => {
    if (offered.has(name) || !findTool(name)) return name;
    const same = STAND_INS.find((group) => group.includes(name));
    return same?.find((other) => offered.has(other)) ?? name;
  });
}

/**
 * Advice (a failure's hint, a result's next step) that names only offered tools: a tool the model lacks gives way
 * to an offered one doing the same job; else the parenthesis, alternative ("，或 …") or sentence naming it is
 * left out; advice with nothing left becomes NO_OFFERED_WAY.
 */
export function offeredAdvice(text: string, offered: OfferedTools): string {
  if (unoffered(text, offered).length === 0) return text;
  const replaced = standIn(text, offered);
  if (unoffered(replaced, offered).length === 0) return replaced;
  const unbracketed = replaced.replace(/（[^（）]*）/g, (aside) =>
    unoffered(aside, offered).length ? '' : aside,
  );
  const sentences = unbracketed
    .split(/[；;。]/)
    .map((sentence) => {
      const alternatives = sentence
        .split(/，或者?/)
        .map((a) => a.trim())
        .filter((a) => a !== '' && unoffered(a, offered).length === 0);
      const [head, ...rest] = alternatives;
      if (head === undefined) return '';
      // What was a later alternative may start with the tool's name: "…，或 create_layer 新建图层".
      const lead = startsWithTool(head) ? `用 ${head}` : head;
      return [lead, ...rest.map((a) => (startsWithTool(a) ? ` ${a}` : a))].join('，或');
    })
    .filter((s) => s !== '');
  return sentences.length ? sentences.join('；') : NO_OFFERED_WAY;
}

/** A result as the model reads it: its hint, next step and confirmation question name only offered tools. */
export function withOfferedAdvice<R>(result: R, offered: OfferedTools): R {
  if (typeof result !== 'object' || result === null) return result;
  const r = result as Record<string, unknown>;
  let out: Record<string, unknown> | null = null;
  const error = r.error as Record<string, unknown> | undefined;
  if (r.ok === false && typeof error?.hint === 'string') {
    const hint = offeredAdvice(error.hint, offered);
    if (hint !== error.hint) out = { ...r, error: { ...error, hint } };
  }
  for (const key of ['next', 'confirmation'] as const) {
    const text = r[key];
    if (typeof text !== 'string') continue;
    const fitted = offeredAdvice(text, offered);
    if (fitted !== text) out = { ...(out ?? r), [key]: fitted };
  }
  return (out ?? result) as R;
}

/**
 * The answer to a call of a tool the model was not offered: one the registry lacks (as the session would say,
 * but suggesting offered tools only) or one of another variant.
 */
export function notOfferedResult(name: string, offered: OfferedTools) {
  const known = findTool(name) !== undefined;
  // No tool name is longer than TOOL_NAME_MAX_LENGTH: a longer one is not a near miss, and is not quoted.
  const plausible = name.length <= TOOL_NAME_MAX_LENGTH;
  const same = STAND_INS.find((group) => group.includes(name))?.filter((other) => offered.has(other)) ?? [];
  const suggestions = plausible ? [...new Set([...same, ...closest(name, [...offered])])].slice(0, 3) : [];
  const shown = plausible ? `“${name}”` : `长达 ${name.length} 个字符`;
  return {
    ok: false,
    error: {
      code: 'unknown_tool',
      message: known
        ? `工具${shown}不在本次对话提供的工具中，没有执行。`
        : `没有名为${shown}的工具，没有执行。`,
      hint: suggestions.length
        ? `是否想调用 ${suggestions.join('、')}？只调用 tools 列表里的工具。`
        : '只调用 tools 列表里的工具。',
      details: { closest: suggestions },
    },
  } as const;
}

/** Every registry tool by its lower case, for names a model sends in another case. */
const TOOL_NAMES = new Map(allTools.map((t) => [t.name.toLowerCase(), t.name]));

/**
 * The registry's name for the tool a model named with stray spaces, in another case (`Create_Document `) or under
 * the `functions.` namespace OpenAI's own chat format puts tools in (`functions.create_layer`, which models
 * trained on it echo), which the model plainly meant; any other name is kept as sent, to be refused with the
 * closest offered names. The history and the transcript carry the name the call ran as, so `atelier run` replays
 * it the same.
 */
export function registryName(name: string): string {
  if (findTool(name)) return name;
  return (
    TOOL_NAMES.get(
      name
        .trim()
        .toLowerCase()
        .replace(/^functions\./, ''),
    ) ?? name
  );
}
