/**
 * One set of size limits: the registry's width/height limits are the engine's, the engine refuses beyond them
 * before allocating, and a document beyond PSD's 30,000 px is saved as PSB, which psd-tools reads back.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  checkCanvasSize,
  MAX_DOCUMENT_PIXELS,
  MAX_DOCUMENT_SIDE,
  PSD_MAX_SIDE,
  psdVersionFor,
} from '../../src/engine/document-limits.js';
import { findTool } from '../../src/registry/index.js';
import { psdToolsAvailable, readWithPsdTools } from '../support/psd-tools.js';
import { call, newSession, ok, tempDir } from '../support/session.js';

describe('document size limits', () => {
  it('are what the registry states for create_document, resize_canvas and resize_image', () => {
    for (const name of ['create_document', 'resize_canvas', 'resize_image']) {
      const limits = findTool(name)!.limits as Record<string, { min?: number; max?: number }>;
      for (const p of ['width', 'height'])
        expect([name, p, limits[p]!.min, limits[p]!.max]).toEqual([name, p, 1, MAX_DOCUMENT_SIDE]);
      const description = findTool(name)!.description;
      expect(description).toContain(`1-${MAX_DOCUMENT_SIDE}`);
      expect(description).toContain(String(MAX_DOCUMENT_PIXELS));
      expect(description).toContain(String(PSD_MAX_SIDE));
    }
  });

  it('choose PSB beyond 30,000 px per side and refuse more pixels than a document may hold', () => {
    expect(psdVersionFor(30_000, 30_000)).toBe(1);
    expect(psdVersionFor(30_001, 10)).toBe(2);
    expect(() => checkCanvasSize(40_000, 100, '新文档')).not.toThrow();
    expect(() => checkCanvasSize(MAX_DOCUMENT_SIDE + 1, 1, '新文档')).toThrow(/每边最多 300,000 像素/);
    expect(() => checkCanvasSize(20_000, 20_000, '新文档')).toThrow(/宽×高最多 268,402,689 像素/);
  });

  it('are enforced up front by create_document, resize_canvas and resize_image, changing nothing', async () => {
    const s = newSession();
    const big = await call(s, 'create_document', { width: 20_000, height: 20_000 });
    expect(big.ok).toBe(false);
    if (!big.ok) expect(big.error.code).toBe('invalid_arguments');
    await ok(s, 'create_document', { width: 100, height: 100, name: 'small' });
    for (const tool of ['resize_canvas', 'resize_image']) {
      const r = await call(s, tool, { width: 20_000, height: 20_000 });
      expect(r.ok, tool).toBe(false);
      if (!r.ok) expect(r.error.message).toContain('268,402,689');
    }
    const info = await ok(s, 'get_document_info');
    expect(JSON.stringify(info)).toContain('"width":100');
  });
});

describe.skipIf(!psdToolsAvailable())('PSB', () => {
  it('is written by save_document for a 40,000 px wide document, read back by psd-tools and reopened', async () => {
    const dir = tempDir();
    const s = newSession(dir);
    await ok(s, 'create_document', { width: 40_000, height: 60, name: 'marker' });
    await ok(s, 'create_layer', { name: '裁片' });
    await ok(s, 'select_rect', { left: 35_000, top: 10, right: 35_100, bottom: 50 });
    await ok(s, 'fill_selection', { color: '#2050a0' });
    const saved = await ok(s, 'save_document');
    expect(saved.path).toBe('marker.psd');
    const file = await readFile(path.join(dir, 'marker.psd'));
    expect(file.readUInt16BE(4)).toBe(2); // version 2: PSB
    const { dump } = await readWithPsdTools(file);
    expect([dump.version, dump.width, dump.height]).toEqual([2, 40_000, 60]);
    const piece = dump.layers.find((l) => l.name === '裁片')!;
    expect(piece.bbox).toEqual([35_000, 10, 35_100, 50]);
    await ok(s, 'close_document', {});
    const opened = await ok(s, 'open_document', { path: 'marker.psd' });
    expect(JSON.stringify(opened)).toContain('"width":40000');
    const px = await ok(s, 'get_pixel_color', { x: 35_050, y: 30 });
    expect(px.hex).toBe('#2050a0');
  }, 120_000);
});
