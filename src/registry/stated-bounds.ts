/**
 * Published descriptions state the length bounds of `limits`, that a new name may not be blank and that a colour
 * may be given as inks, in Chinese,
 * derived here so each is written once (in `limits`) and the text a model reads can never disagree with what
 * validation enforces. The published schemas carry no keywords beyond the spec's, so this text is how they say it.
 */
import type { ParamLimits, ParamSchema, ToolDefinition } from './types.js';

/** Said of a name that must not be blank, in the description and in the refusal alike. */
export const NON_BLANK_TEXT = '不能为空或只含空白字符';

/** Said of a colour that may be given as press inks (ParamLimits.inks). */
export const INKS_TEXT = '也可写油墨百分比 cmyk(C,M,Y,K)，如单色黑 cmyk(0,0,0,100)';

/**
 * `最多 1000 项，每项最多 255 个字符`, or '' when the limits bound neither length nor blankness (nor let a colour be
 * given as inks).
 */
export function boundsText(limits: ParamLimits | undefined): string {
  const parts: string[] = [];
  if (limits?.nonBlank) parts.push(NON_BLANK_TEXT);
  if (limits?.maxItems !== undefined) parts.push(`最多 ${limits.maxItems} 项`);
  if (limits?.each?.maxLength !== undefined) parts.push(`每项最多 ${limits.each.maxLength} 个字符`);
  if (limits?.maxLength !== undefined) parts.push(`最多 ${limits.maxLength} 个字符`);
  if (limits?.inks) parts.push(INKS_TEXT);
  return parts.join('，');
}

function stated(description: string, bounds: string): string {
  if (bounds === '') return description;
  return description.endsWith('。') ? `${description}${bounds}。` : `${description}（${bounds}）`;
}

function withBounds(param: ParamSchema, limits: ParamLimits | undefined): ParamSchema {
  let out: ParamSchema = { ...param, description: stated(param.description, boundsText(limits)) };
  const fields = limits?.items;
  if (fields && out.items?.type === 'object') {
    const items = out.items;
    const properties = Object.fromEntries(
      Object.entries(items.properties).map(([key, field]) => [key, withBounds(field, fields[key])]),
    );
    out = { ...out, items: { ...items, properties } };
  }
  return out;
}

/** The tool with each bounded parameter's (and item field's) description ending in its bounds. */
export function withStatedBounds<T extends ToolDefinition>(tool: T): T {
  const limits = tool.limits;
  if (!limits) return tool;
  const properties = Object.fromEntries(
    Object.entries(tool.parameters.properties).map(([key, param]) => [key, withBounds(param, limits[key])]),
  );
  return { ...tool, parameters: { ...tool.parameters, properties } };
}
