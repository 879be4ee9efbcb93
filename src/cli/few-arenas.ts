/**
 * glibc gives each thread that allocates its own malloc arena, up to eight per core, and keeps in it what the
 * thread frees. A server runs many such threads (sharp's and libvips', the sessions' worker threads, the text
 * renderer's), and its native memory grew with every session that came and went: over 16 garment flows of
 * sessions opened and deleted in turn, `atelier serve` went from 434 to 945 MiB of RSS (440 to 871 in another run)
 * with a JS heap under 60 MB; with two arenas, from 392 to 457 MiB (395 to 573), at the same speed
 * (`npm run bench -- server-rss`). glibc reads the arena count once, as the process starts, so a long-running
 * command starts itself again with it set.
 *
 * The parent passes on the signals it receives (a container's runtime signals its first process only), as messages
 * the child raises on itself while it runs, so the child may get one twice: from a terminal's Ctrl-C, or a service
 * manager's stop, that reach both. `atelier serve` takes a second stop signal within a second of the first as the
 * same one. The child stops as SIGTERM would stop it when the parent is gone. A caller who sets MALLOC_ARENA_MAX (or
 * GLIBC_TUNABLES) chooses for themselves, and nothing is started again.
 */
import { type ChildProcess, spawn } from 'node:child_process';

/** The commands that run until stopped, whose native memory the arenas would keep. */
const LONG_RUNNING: ReadonlySet<string> = new Set(['serve', 'mcp']);
const ARENAS = '2';
const FORWARDED = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
/** Marks the child: it watches its parent over the IPC channel the parent opened for that. */
const WATCH_PARENT = 'ATELIER_WATCH_PARENT';
/** The key of the message that passes a signal on to the child. */
const FORWARDED_SIGNAL = 'atelierSignal';

/** Whether this Node runs on glibc (about 7 ms: asked only of the commands it concerns). */
export function onGlibc(): boolean {
  if (process.platform !== 'linux') return false;
  const header = (process.report.getReport() as { header?: { glibcVersionRuntime?: string } }).header;
  return typeof header?.glibcVersionRuntime === 'string';
}

/** Whether `atelier <argv>` should run in a child started with few arenas. */
export function wantsFewArenas(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  execArgv: readonly string[],
  glibc: () => boolean = onGlibc,
): boolean {
  return (
    LONG_RUNNING.has(argv[0] ?? '') &&
    !argv.some((a) => a === '--help' || a === '-h') &&
    env.MALLOC_ARENA_MAX === undefined &&
    env.GLIBC_TUNABLES === undefined &&
    // A debugger's port would be taken twice.
    !execArgv.some((a) => a.startsWith('--inspect')) &&
    glibc()
  );
}

/**
 * Passes the signals this process receives on to the child as messages over the IPC channel, which the child
 * raises on itself (`raiseForwarded`). Sent with kill(), a stop that reached both (a terminal's Ctrl-C) could come
 * to the child a second time after its clean shutdown, while Node tore it down with the default handlers back: it
 * then died of the signal instead of exiting 0. A message comes only while the child's event loop runs.
 */
function forwardSignals(child: ChildProcess): () => void {
  const handlers = FORWARDED.map((signal) => {
    // A child no longer connected is going: the signal has nothing left to stop.
    const handler = () => {
      if (child.connected) child.send({ [FORWARDED_SIGNAL]: signal });
    };
    process.on(signal, handler);
    return [signal, handler] as const;
  });
  return () => {
    for (const [signal, handler] of handlers) process.off(signal, handler);
  };
}

/** In the child: raises a signal the parent passed on, as if it had come from outside. */
function raiseForwarded(message: unknown): void {
  const signal = (message as Record<string, unknown> | null)?.[FORWARDED_SIGNAL];
  if ((FORWARDED as readonly unknown[]).includes(signal)) process.kill(process.pid, signal as NodeJS.Signals);
}

/**
 * Runs this `atelier` command again in a child with few malloc arenas when it is a long-running one on glibc,
 * and resolves true once the child has ended, this process ending as it did (its exit code, or its signal raised
 * again); resolves false when this process is to run the command itself.
 */
export async function ranWithFewArenas(): Promise<boolean> {
  if (process.env[WATCH_PARENT] === '1') {
    delete process.env[WATCH_PARENT];
    // The parent gone (killed outright), nobody would stop this one: it stops as on SIGTERM.
    process.channel?.unref();
    process.once('disconnect', () => process.kill(process.pid, 'SIGTERM'));
    process.on('message', raiseForwarded);
    return false;
  }
  if (!wantsFewArenas(process.argv.slice(2), process.env, process.execArgv)) return false;
  const child = spawn(process.execPath, [...process.execArgv, ...process.argv.slice(1)], {
    stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, MALLOC_ARENA_MAX: ARENAS, [WATCH_PARENT]: '1' },
  });
  const stopForwarding = forwardSignals(child);
  const ended = await new Promise<{ code: number | null; signal: NodeJS.Signals | null } | null>(
    (resolve) => {
      // Not started (no memory for another process, say): this one runs the command after all.
      child.once('error', () => resolve(null));
      child.once('exit', (code, signal) => resolve({ code, signal }));
    },
  );
  stopForwarding();
  if (!ended) return false;
  if (ended.signal) process.kill(process.pid, ended.signal);
  else process.exitCode = ended.code ?? 1;
  return true;
}
