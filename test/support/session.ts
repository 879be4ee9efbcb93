/** A real Session in a fresh temporary workspace, and small helpers to drive it like a model would. */
import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { ToolError, ToolResult } from '../../src/calls/result.js';
import { Session } from '../../src/calls/session.js';
import type { EditorState } from '../../src/engine/editor.js';
import type { Layer } from '../../src/engine/model.js';

export function tempDir(prefix = 'atelier-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function newSession(workspace = tempDir()): Session {
  return new Session({ workspace, onInternalError: () => {} });
}

/** Calls a tool with an object or a JSON-string argument and returns the result. */
export function call(session: Session, name: string, args: unknown = {}): Promise<ToolResult> {
  return session.call({ id: `call_${name}`, type: 'function', function: { name, arguments: args } });
}

/** Calls a tool and fails the test with the error when the call did not succeed. */
export async function ok(
  session: Session,
  name: string,
  args: unknown = {},
): Promise<Record<string, unknown>> {
  const r = await call(session, name, args);
  if (!r.ok) throw new Error(`${name} failed: ${JSON.stringify(r.error)}`);
  return r as Record<string, unknown>;
}

/**
 * Typed arrays inside a layer's fields (a mask's pixels) by their digest: as JSON, each byte would take ten
 * characters, and a large mask would not fit in a string.
 */
function bytesAsDigest(_key: string, value: unknown): unknown {
  return ArrayBuffer.isView(value)
    ? createHash('sha256')
        .update(value as Uint8Array)
        .digest('hex')
    : value;
}

/** A content hash of every open document: names, history position and every layer with its pixels. */
export function hashEditor(state: EditorState): string {
  const h = createHash('sha256');
  h.update(
    JSON.stringify({
      active: state.active,
      docs: state.docs.map((d) => [d.id, d.name, d.path, d.history.index, d.history.states.length]),
    }),
  );
  for (const d of state.docs) {
    const s = d.history.states[d.history.index]!;
    h.update(
      JSON.stringify({
        w: s.width,
        h: s.height,
        dpi: s.dpi,
        mode: s.mode,
        root: s.root,
        active: s.active,
        guides: s.guides,
      }),
    );
    for (const [id, layer] of [...s.layers].sort((a, b) => a[0] - b[0])) {
      const { raster, source, ...meta } = layer as Layer & {
        raster?: { data: Uint8ClampedArray };
        source?: { data: Uint8ClampedArray };
      };
      h.update(JSON.stringify([id, meta], bytesAsDigest));
      if (raster) h.update(raster.data);
      if (source) h.update(source.data);
    }
  }
  return h.digest('hex');
}

/**
 * Calls a tool that must fail with `code` and shows the failure changed nothing: the editor state is the
 * same object and every document hashes the same. Returns the error for further checks.
 */
export async function refused(
  session: Session,
  name: string,
  args: unknown,
  code: string,
): Promise<ToolError & Record<string, unknown>> {
  const before = session.editor.snapshot;
  const hash = hashEditor(before);
  const r = await call(session, name, args);
  expect(r.ok, `${name} should fail: ${JSON.stringify(r)}`).toBe(false);
  if (r.ok) throw new Error('unreachable');
  expect(r.error.code, JSON.stringify(r.error)).toBe(code);
  expect(session.editor.snapshot).toBe(before);
  expect(hashEditor(session.editor.snapshot)).toBe(hash);
  return r.error as ToolError & Record<string, unknown>;
}

/**
 * A session snapshot (or anything holding one) without its layers' thumbnail keys: a key names one raster of one
 * process (calls/thumbnail.ts), so a session recovered from its journal has new ones for the same pixels. What
 * the user sees of them, the thumbnails, is compared apart.
 */
export function withoutThumbnailKeys<T>(value: T): T {
  return JSON.parse(JSON.stringify(value), (key, v) =>
    key === 'thumbnail' || key === 'mask_thumbnail' ? undefined : v,
  ) as T;
}
