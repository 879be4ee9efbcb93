/**
 * Vitest's global setup: every test run writes its temporary folders (workspaces, servers' journals, browser
 * profiles, CLI outputs) under one fresh folder, removed when the run ends. Tests create them with
 * os.tmpdir(), which reads TMPDIR; the test processes and the servers and CLIs they start inherit it. Without
 * this, each run of the suite left about 900 folders and 450 MB behind in /tmp.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';

const PREFIX = 'atelier-test-run-';

export default function setup(): () => void {
  // Each test project runs the global setup again: its runs share the first one's folder. Nested, the path grew
  // too long for Chromium's socket (108 bytes).
  if (basename(tmpdir()).startsWith(PREFIX)) return () => {};
  const root = mkdtempSync(join(tmpdir(), PREFIX));
  process.env.TMPDIR = root;
  // A browser the workers started may still be writing its profile as it exits (ENOTEMPTY): tried again a
  // moment later.
  return () => rmSync(root, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
}
