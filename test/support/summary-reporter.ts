import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

/** How many of the slowest files the summary names: where the suite's time goes, read from CI's log. */
const SLOWEST = 12;

/**
 * Prints one plain `N passed, N failed` line, the form CI reads, after the slowest files; every file's time goes
 * to `test-artifacts/durations.txt`.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    const times: { file: string; ms: number }[] = [];
    for (const mod of modules) {
      for (const test of mod.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failed++;
        else skipped++;
      }
      if (mod.state() === 'failed' && mod.children.size === 0) failed++;
      times.push({ file: path.relative(process.cwd(), mod.moduleId), ms: mod.diagnostic().duration });
    }
    times.sort((a, b) => b.ms - a.ms);
    const lines = times.map((t) => `${(t.ms / 1000).toFixed(1).padStart(7)} s  ${t.file}`);
    mkdirSync('test-artifacts', { recursive: true });
    writeFileSync(path.join('test-artifacts', 'durations.txt'), `${lines.join('\n')}\n`);
    console.log(`\nslowest files:\n${lines.slice(0, SLOWEST).join('\n')}`);
    console.log(`\n${passed} passed, ${failed} failed, ${skipped} skipped`);
  }
}
