/** The `atelier` command line. Usage errors go to stderr with exit code 2; stdout carries only results. */

import { chatCommand } from './chat-command.js';
import { doctorCommand } from './doctor-command.js';
import { mcpCommand } from './mcp-command.js';
import { labelsCommand, toolsCommand } from './registry-commands.js';
import { runCommand } from './run-command.js';
import { serveCommand } from './serve-command.js';
import { type Command, parseCommand, UsageError } from './usage.js';

const commands: readonly Command[] = [
  toolsCommand,
  labelsCommand,
  runCommand,
  chatCommand,
  serveCommand,
  mcpCommand,
  doctorCommand,
];

function overview(): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  return [
    'Usage: atelier <command> [options]',
    '',
    'Atelier: an image editor driven by AI tool calls.',
    '',
    'Commands:',
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'Run `atelier <command> --help` for the options of a command.',
  ].join('\n');
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(`${overview()}\n`);
    return 0;
  }
  const command = commands.find((c) => c.name === name);
  if (!command) {
    throw new UsageError(`没有命令“${name}”：可用的命令有 ${commands.map((c) => c.name).join('、')}`);
  }
  const { values, positionals } = parseCommand(command, rest);
  if (values.help) {
    process.stdout.write(`${command.usage}\n`);
    return 0;
  }
  return command.run(values, positionals);
}

// A reader that goes away (`atelier run calls.jsonl | head`) ends the output: stop as a process killed by
// SIGPIPE would (Node ignores the signal), rather than crash with an unhandled 'error' event and its stack.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code !== 'EPIPE') throw err;
  process.exit(128 + 13);
});

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    if (err instanceof UsageError) {
      process.stderr.write(`atelier: ${err.message}\n`);
      process.exitCode = 2;
    } else if (err instanceof Error && err.name === 'EditorError') {
      // An error the engine words for its user (a workspace it cannot make): its message, not a stack.
      const hint = (err as { hint?: unknown }).hint;
      process.stderr.write(`atelier: ${err.message}${typeof hint === 'string' ? `（${hint}）` : ''}\n`);
      process.exitCode = 1;
    } else {
      process.stderr.write(`atelier: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exitCode = 1;
    }
  },
);
