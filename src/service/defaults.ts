/** Defaults every surface shares. */

/** The folder every path is relative to when no `--workspace` is given. */
export const DEFAULT_WORKSPACE = './atelier-workspace';
