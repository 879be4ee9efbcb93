/**
 * `atelier serve` and `atelier mcp` start themselves again with two malloc arenas on glibc (src/cli/few-arenas.ts):
 * the process that serves has MALLOC_ARENA_MAX=2, a stop sent to the parent (a container's first process) or to
 * both (a terminal's Ctrl-C, a service manager) shuts the server down once and cleanly, the parent ends as the
 * server did, and a server whose parent was killed outright stops rather than run on unwatched.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { onGlibc, wantsFewArenas } from '../../src/cli/few-arenas.js';
import { childrenOf, serveCli } from '../support/cli.js';
import { tempDir } from '../support/session.js';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

const environOf = (pid: number): Record<string, string> =>
  Object.fromEntries(
    readFileSync(`/proc/${pid}/environ`, 'utf8')
      .split('\0')
      .filter(Boolean)
      .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
  );

const alive = (pid: number) =>
  existsSync(`/proc/${pid}/stat`) && !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));

const serve = (env: NodeJS.ProcessEnv) => serveCli(tempDir('atelier-arenas-'), children, env);

/** The caller's own arena settings left out. */
const UNSET: NodeJS.ProcessEnv = { MALLOC_ARENA_MAX: undefined, GLIBC_TUNABLES: undefined };

const yes = () => true;
const no = () => false;

describe('wantsFewArenas', () => {
  it('starts again the long-running commands on glibc only, unless the caller chose', () => {
    expect(wantsFewArenas(['serve', '--port', '0'], {}, [], yes)).toBe(true);
    expect(wantsFewArenas(['mcp'], {}, [], yes)).toBe(true);
    for (const command of ['run', 'chat', 'tools', 'doctor', 'labels']) {
      expect(wantsFewArenas([command], {}, [], yes), command).toBe(false);
    }
    expect(wantsFewArenas([], {}, [], yes)).toBe(false);
    expect(wantsFewArenas(['serve', '--help'], {}, [], yes)).toBe(false);
    // Asking which C library there is takes milliseconds: not at every command's start.
    const asked = () => {
      throw new Error('asked');
    };
    expect(wantsFewArenas(['tools'], {}, [], asked)).toBe(false);
    expect(wantsFewArenas(['serve'], {}, [], no)).toBe(false);
    expect(wantsFewArenas(['serve'], { MALLOC_ARENA_MAX: '8' }, [], yes)).toBe(false);
    expect(wantsFewArenas(['serve'], { GLIBC_TUNABLES: 'glibc.malloc.arena_max=4' }, [], yes)).toBe(false);
    expect(wantsFewArenas(['serve'], {}, ['--inspect=9229'], yes)).toBe(false);
  });
});

describe.skipIf(!onGlibc())('atelier serve with two malloc arenas', () => {
  it('serves from a child with MALLOC_ARENA_MAX=2 and shuts down once, cleanly, on a stop sent to the parent', async () => {
    const served = await serve(UNSET);
    const [server, ...more] = childrenOf(served.child.pid!);
    expect(more).toEqual([]);
    expect(environOf(server!).MALLOC_ARENA_MAX).toBe('2');
    expect(environOf(served.child.pid!).MALLOC_ARENA_MAX).toBeUndefined();
    expect((await fetch(`${served.url}/v1/health`)).status).toBe(200);

    served.child.kill('SIGTERM');
    expect(await served.exited).toEqual({ code: 0, signal: null });
    expect(served.stderr().match(/shutting down/g)).toHaveLength(1);
    expect(alive(server!)).toBe(false);
  });

  it('takes a Ctrl-C that reaches both processes as one stop', async () => {
    const served = await serve(UNSET);
    const [server] = childrenOf(served.child.pid!);
    // As a terminal does: the signal to each process of the foreground group, the parent passing its own on.
    process.kill(server!, 'SIGINT');
    served.child.kill('SIGINT');
    expect(await served.exited).toEqual({ code: 0, signal: null });
    expect(served.stderr().match(/shutting down/g)).toHaveLength(1);
  });

  it('stops when its parent is killed outright', async () => {
    const served = await serve(UNSET);
    const [server] = childrenOf(served.child.pid!);
    served.child.kill('SIGKILL');
    await expect.poll(() => alive(server!), { timeout: 20_000 }).toBe(false);
    expect(served.stderr()).toMatch(/shutting down/);
  });

  it('is not started again when the caller set the arenas', async () => {
    const served = await serve({ MALLOC_ARENA_MAX: '3' });
    expect(childrenOf(served.child.pid!)).toEqual([]);
    expect(environOf(served.child.pid!).MALLOC_ARENA_MAX).toBe('3');
    expect((await fetch(`${served.url}/v1/health`)).status).toBe(200);
    served.child.kill('SIGTERM');
    expect(await served.exited).toEqual({ code: 0, signal: null });
  });
});
