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

/**
 * `atelier serve --port 0` from dist/ as a child process (no token, `env` added), resolved once it says where it
 * listens. The caller kills the child (it is pushed on `children` for that).
 */
export async function serveCli(
  workspace: string,
  children: ChildProcess[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--workspace', workspace], {
    env: { ...process.env, ATELIER_TOKEN: '', ...env },
  });
  children.push(child);
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stderr);
      if (m) resolve(m[1]!);
    });
    child.on('exit', (code) => reject(new Error(`exited ${code}: ${stderr}`)));
  });
  return { url, child };
}

/**
 * The process that serves for `atelier serve` child `pid`: on glibc the command starts itself again with few malloc
 * arenas (src/cli/few-arenas.ts), and its one child serves; else the process itself.
 */
export function servingPid(pid: number): number {
  let started = '';
  try {
    started = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
  } catch {}
  return started ? Number(started.split(/\s+/)[0]) : pid;
}

/** Kills the process that serves for `child` outright, as a crash would, and waits for `child` to end. */
export async function crash(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.on('exit', resolve));
  process.kill(servingPid(child.pid!), 'SIGKILL');
  await exited;
}
