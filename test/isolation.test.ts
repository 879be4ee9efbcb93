/**
 * Test files share their worker's modules (vitest.config.ts): one that writes the environment or replaces a module
 * would change the files that run after it in that worker, and would not see its own change in a module already
 * loaded. Every such file must run isolated.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ISOLATED_TEST_FILES } from './support/isolated-files.js';

const TEST_ROOT = path.resolve('test');
/** Writing `process.env`, or Vitest's ways of replacing a module or a global. */
const CHANGES_WHAT_MODULES_READ =
  /process\.env\.\w+\s*=[^=]|process\.env\[[^\]]+\]\s*=[^=]|delete\s+process\.env|Object\.assign\(\s*process\.env|vi\.(?:do)?mock\(|vi\.stub(?:Env|Global)\(/;

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(full);
    return entry.name.endsWith('.test.ts') ? [path.relative(path.dirname(TEST_ROOT), full)] : [];
  });
}

describe('test files that change what modules read', () => {
  it('run isolated, and the isolated list names only such files', () => {
    const files = testFiles(TEST_ROOT).map((f) => f.split(path.sep).join('/'));
    const changing = files.filter((f) => CHANGES_WHAT_MODULES_READ.test(readFileSync(f, 'utf8')));
    expect(changing.length).toBeGreaterThan(0);
    expect([...ISOLATED_TEST_FILES].sort()).toEqual(changing.sort());
  });
});
