/**
 * Start-up cost of the command line: CPU time (user + system) of `atelier tools`, `atelier labels` and
 * `atelier --help` against `node -e 0` measured in the same run (target: tools ≤ 3× node's own start-up).
 * Runs the built dist/ (npm run build first).
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ratio } from './util.js';

const BIN = fileURLToPath(new URL('../bin/atelier.js', import.meta.url));

/** Median CPU milliseconds of a child process (user + system, as bash's `time` reports them). */
function cpuMs(args: string[], runs = 9): number {
  const command = [process.execPath, ...args].map((a) => `'${a}'`).join(' ');
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = spawnSync('bash', ['-c', `TIMEFORMAT='%3U %3S'; { time ${command} >/dev/null 2>&1; } 2>&1`], {
      encoding: 'utf8',
    });
    const [user = 0, sys = 0] = t.stdout.trim().split(/\s+/).map(Number);
    times.push((user + sys) * 1000);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

export async function benchCli(): Promise<string[]> {
  const node = cpuMs(['-e', '0']);
  const lines = [`cli: node -e 0 ${node.toFixed(0)} ms CPU (baseline)`];
  for (const args of [['tools'], ['labels'], ['--help'], ['serve', '--help']]) {
    const ms = cpuMs([BIN, ...args]);
    lines.push(
      `cli: atelier ${args.join(' ')} ${ms.toFixed(0)} ms CPU, ${ratio(ms, node)} node's start-up${args[0] === 'tools' ? ' (target ≤ 3×)' : ''}`,
    );
  }
  return lines;
}
