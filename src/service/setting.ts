/** A setting of a surface's, given by a command-line flag or by an environment variable: how both are read. */

/** Parsed command-line flags (node:util `parseArgs` values). */
export type FlagValues = Record<string, string | boolean | undefined>;

/** A setting's text as given, and who gave it: the flag (it wins) or the environment variable. */
export interface Given {
  readonly raw: string;
  /** `--flag` or `环境变量 NAME`, as an error names it. */
  readonly from: string;
}

/**
 * A flag's value, else the environment variable's, else undefined. A variable is read trimmed, and one that is
 * empty or blank counts as unset: a value pasted with its newline, or `NAME= ` in a unit file, means what it says.
 */
export function pickSetting(
  values: FlagValues,
  flag: string,
  env: NodeJS.ProcessEnv,
  variable: string,
): Given | undefined {
  const v = values[flag];
  if (typeof v === 'string') return { raw: v, from: `--${flag}` };
  const e = env[variable]?.trim();
  return e === undefined || e === '' ? undefined : { raw: e, from: `环境变量 ${variable}` };
}
