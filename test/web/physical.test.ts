/** Physical sizes in the studio's forms: which tools offer them, and the conversions Photoshop's dialogs make. */
import { describe, expect, it } from 'vitest';
import { findTool } from '../../src/registry/index.js';
import { fromPixels, PAPERS, paperPixels, physicalOf, toPixels } from '../../src/web/forms/physical.js';

function physicalOfTool(name: string) {
  const tool = findTool(name)!;
  return physicalOf(tool.limits ?? {}, Object.keys(tool.parameters.properties));
}

describe('physical sizes', () => {
  it('are offered where the registry marks lengths in pixels and a resolution', () => {
    expect(physicalOfTool('create_document')).toEqual({ lengths: ['width', 'height'], dpi: 'resolution' });
    expect(physicalOfTool('resize_image')).toEqual({ lengths: ['width', 'height'], dpi: 'resolution' });
    // A canvas size without a resolution of its own, and tools without lengths, offer none.
    expect(physicalOfTool('resize_canvas')).toBeNull();
    expect(physicalOfTool('gaussian_blur')).toBeNull();
  });

  it('convert as Photoshop does: A4 at 300 DPI is 2480 × 3508 pixels', () => {
    const a4 = PAPERS.find((p) => p.id === 'a4')!;
    expect(paperPixels(a4, 300, false)).toEqual([2480, 3508]);
    expect(paperPixels(a4, 300, true)).toEqual([3508, 2480]);
    expect(paperPixels(a4, 150, false)).toEqual([1240, 1754]);
    expect(toPixels(3, 300, 'mm')).toBe(35); // a 3 mm bleed
    expect(toPixels(8.5, 300, 'in')).toBe(2550);
    expect(toPixels(72, 300, 'pt')).toBe(300);
    expect(toPixels(0.01, 72, 'mm')).toBe(1);
    expect(fromPixels(2480, 300, 'mm')).toBe(209.97);
    expect(fromPixels(2480, 300, 'cm')).toBe(21);
    expect(fromPixels(300, 300, 'pt')).toBe(72);
    expect(fromPixels(123, 300, 'px')).toBe(123);
  });
});
