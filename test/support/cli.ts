/** Runs the real `atelier` binary (built into dist/ by the test command) and captures its output. */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const BIN = fileURLToPath(new URL('../../bin/atelier.js', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runCli(
  args: string[],
  opts: { input?: string; cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: opts.cwd,
      env: { ...process.env, ...opts.env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(opts.input ?? '');
  });
}

/** A running `atelier serve` started by `serveCli`. */
export interface ServedCli {
  readonly url: string;
  readonly child: ChildProcess;
  /** Everything it has written to stderr so far. */
  stderr(): string;
  /** Resolves once it has ended, with how. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * `atelier serve --port 0` from dist/ as a child process (no token, `env` added: an `undefined` value leaves a
 * variable out), resolved once it says where it listens. The caller kills the child (it is pushed on `children`
 * for that).
 */
export async function serveCli(
  workspace: string,
  children: ChildProcess[],
  env: NodeJS.ProcessEnv = {},
): Promise<ServedCli> {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--workspace', workspace], {
    env: { ...process.env, ATELIER_TOKEN: '', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.push(child);
  let stderr = '';
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stderr);
      if (m) resolve(m[1]!);
    });
    void exited.then(({ code }) => reject(new Error(`exited ${code}: ${stderr}`)));
  });
  return { url, child, stderr: () => stderr, exited };
}

/** The processes `pid` started (not its threads), from /proc. */
export function childrenOf(pid: number): number[] {
  return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
    .trim()
    .split(/\s+/)
    .filter(Boolean)
    .map(Number);
}

/**
 * The process that serves for `atelier serve` child `pid`: on glibc the command starts itself again with few malloc
 * arenas (src/cli/few-arenas.ts), and its one child serves; else the process itself.
 */
export function servingPid(pid: number): number {
  return childrenOf(pid)[0] ?? pid;
}

/** Kills the process that serves for `child` outright, as a crash would, and waits for `child` to end. */
export async function crash(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.on('exit', resolve));
  process.kill(servingPid(child.pid!), 'SIGKILL');
  await exited;
}
