/** Command-line parsing shared by every command: strict options, usage errors with exit code 2. */
import { type ParseArgsConfig, parseArgs } from 'node:util';

export class UsageError extends Error {}

export interface Command {
  readonly name: string;
  readonly summary: string;
  readonly usage: string;
  readonly options: NonNullable<ParseArgsConfig['options']>;
  readonly allowPositionals?: boolean;
  run(values: Record<string, string | boolean | undefined>, positionals: string[]): Promise<number> | number;
}

export function parseCommand(command: Command, argv: string[]) {
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      options: { ...command.options, help: { type: 'boolean', short: 'h' } },
      allowPositionals: command.allowPositionals ?? false,
      strict: true,
    });
    return { values: values as Record<string, string | boolean | undefined>, positionals };
  } catch (err) {
    throw new UsageError(`${(err as Error).message}\n\n${command.usage}`);
  }
}

/** Checks an option's value against its allowed values, naming them when it is not one. */
export function oneOf<T extends string>(
  option: string,
  value: unknown,
  allowed: readonly T[],
  fallback: T,
): T {
  if (value === undefined) return fallback;
  if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) return value as T;
  throw new UsageError(`unknown --${option} "${String(value)}"; allowed: ${allowed.join(', ')}`);
}
