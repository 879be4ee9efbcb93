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
    throw new UsageError(`${argsProblem(err as NodeJS.ErrnoException, command.name)}\n\n${command.usage}`);
  }
}

/** node:util's parseArgs error in Chinese: its own text is English, and names the option only in quotes. */
function argsProblem(err: NodeJS.ErrnoException, command: string): string {
  const quoted = /'([^']*)'/.exec(err.message)?.[1];
  if (quoted === undefined) return err.message;
  const option = quoted.replace(/ <value>$/, '');
  const help = `（运行 atelier ${command} --help 查看用法）`;
  if (err.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return `没有选项“${option}”${help}`;
  if (err.code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') return `多余的参数“${option}”：这个命令不接受它`;
  if (err.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    if (/ argument missing$/.test(err.message)) return `选项 ${option} 缺少值${help}`;
    if (/ argument is ambiguous/.test(err.message)) {
      return `选项 ${option} 的值以“-”开头，会被当成另一个选项：请写成 ${option}=值（如 ${option}=-1）`;
    }
    if (/ does not take an argument/.test(err.message)) return `选项 ${option} 不带值：去掉“=”和它后面的内容`;
  }
  return err.message;
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
  throw new UsageError(`--${option} 的值“${String(value)}”无效：可选 ${allowed.join('、')}`);
}
