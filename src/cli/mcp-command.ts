/**
 * `atelier mcp`: one MCP connection over stdio, one Session. stdout is the JSON-RPC channel, so nothing else
 * may ever be written there: every log goes to stderr (console.log included, whoever calls it).
 */

import { setImmediate as afterMicrotasks } from 'node:timers/promises';
import { variants } from '../registry/index.js';
import { parseToolsets, TOOLSET_KEYS, UnknownToolset } from '../registry/toolsets.js';
import { DEFAULT_WORKSPACE } from '../service/defaults.js';
import { type Command, oneOf, UsageError } from './usage.js';

/** Sends every console method that would write to stdout to stderr instead. */
function keepStdoutForProtocol(): void {
  const toStderr = (...args: unknown[]) => console.error(...args);
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
  console.trace = (...args: unknown[]) => console.error(new Error(args.map(String).join(' ')).stack);
}

export const mcpCommand: Command = {
  name: 'mcp',
  summary: 'serve the tools to an MCP client over stdio',
  usage: [
    'Usage: atelier mcp [--variant reduced|full|extended] [--toolsets A,B] [--workspace DIR] [--transcript FILE]',
    '',
    'Speaks MCP over stdin/stdout for a desktop client (one session per process). Logs go to stderr.',
    `  --variant V         the tools listed: ${variants.join(' | ')} (default: extended)`,
    `  --toolsets A,B      list (and run) only these toolsets' tools, core always included: ${TOOLSET_KEYS.join(', ')}`,
    '                      (default: all; for clients that take only about 40 tools)',
    `  --workspace DIR     folder every path is relative to (default: ${DEFAULT_WORKSPACE}; give an absolute path`,
    '                      in a client configuration, whose working directory is not yours)',
    '  --transcript FILE   also append every call and result to FILE as JSONL',
  ].join('\n'),
  options: {
    variant: { type: 'string' },
    toolsets: { type: 'string' },
    workspace: { type: 'string' },
    transcript: { type: 'string' },
  },
  async run(values) {
    keepStdoutForProtocol();
    const [{ StdioServerTransport }, { Session }, { createMcpServer }, { CheckedLines }] = await Promise.all([
      import('@modelcontextprotocol/sdk/server/stdio.js'),
      import('../calls/session.js'),
      import('../mcp/server.js'),
      import('../mcp/stdio.js'),
    ]);
    const variant = oneOf('variant', values.variant, variants, 'extended');
    let toolsets: ReturnType<typeof parseToolsets> | undefined;
    try {
      toolsets = values.toolsets === undefined ? undefined : parseToolsets(String(values.toolsets));
    } catch (err) {
      throw err instanceof UnknownToolset ? new UsageError(`--toolsets：${err.message}`) : err;
    }
    const session = new Session({
      workspace: String(values.workspace ?? DEFAULT_WORKSPACE),
      ...(values.transcript ? { transcript: String(values.transcript) } : {}),
      onInternalError: (err) => console.error('atelier: internal error:', err),
    });
    const running = new Set<Promise<unknown>>();
    const server = createMcpServer(
      (call, opts) => {
        const result = session.call(call, opts);
        running.add(result);
        void result.finally(() => running.delete(result));
        return result;
      },
      { variant, ...(toolsets ? { toolsets } : {}) },
    );
    const closed = new Promise<void>((resolve) => {
      server.onclose = () => resolve();
    });
    server.onerror = (err) => console.error(`atelier: mcp: ${err.message}`);
    const input = process.stdin.pipe(
      new CheckedLines(
        (answer) => process.stdout.write(answer),
        (line) => process.stderr.write(`${line}\n`),
      ),
    );
    await server.connect(new StdioServerTransport(input as unknown as typeof process.stdin));
    // A client may send its last requests and close stdin at once (`… | atelier mcp`): closing the server then
    // would drop the answers to the calls still running (their work done, unreported). Requests already read
    // reach `running` after the microtasks, and each answer is written in the microtasks after its call ends.
    input.once('end', async () => {
      await afterMicrotasks();
      while (running.size > 0) {
        await Promise.allSettled(running);
        await afterMicrotasks();
      }
      await server.close();
    });
    process.stderr.write(
      `atelier: MCP server on stdio (variant ${variant}${toolsets ? `, toolsets ${toolsets.join(',')}` : ''}, workspace ${session.workspace.root})\n`,
    );
    await closed;
    return 0;
  },
};
