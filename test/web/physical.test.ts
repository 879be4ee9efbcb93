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
    // To 0.1 mm, as the status bar and get_document_info say it.
    expect(fromPixels(2480, 300, 'mm', 1)).toBe(210);
    expect(fromPixels(3508, 300, 'mm', 1)).toBe(297);
  });

  it('list ISO 216 from A0 to A5 and ISO B4 and B5, largest first, each in both turns', () => {
    expect(PAPERS.map((p) => p.id)).toEqual([
      'a0',
      'a1',
      'a2',
      'a3',
      'a4',
      'a5',
      'b4',
      'b5',
      'letter',
      'card',
    ]);
    const mm = (id: string) => PAPERS.find((p) => p.id === id)!.mm;
    expect([mm('a0'), mm('a1'), mm('a2'), mm('a3')]).toEqual([
      [841, 1189],
      [594, 841],
      [420, 594],
      [297, 420],
    ]);
    // ISO's B series (B5 is 176 × 250 mm; JIS's would be 182 × 257).
    expect([mm('b4'), mm('b5')]).toEqual([
      [250, 353],
      [176, 250],
    ]);
    // Each A size is the next one up halved across its long side (to the whole millimetre).
    for (let i = 0; i < 5; i++) {
      const [w, h] = mm(`a${i}`);
      expect(mm(`a${i + 1}`), `A${i + 1}`).toEqual([Math.floor(h / 2), w]);
    }
    // ISO sizes are named alike in both languages, by their id.
    for (const p of PAPERS.filter((p) => /^[ab]\d$/.test(p.id)))
      expect([p.zh, p.en]).toEqual([p.id.toUpperCase(), p.id.toUpperCase()]);
  });

  it('give A0 and A2 at 300 DPI as Photoshop does, rounded to the nearest pixel like A4', () => {
    const paper = (id: string) => PAPERS.find((p) => p.id === id)!;
    expect(paperPixels(paper('a0'), 300, false)).toEqual([9933, 14043]);
    expect(paperPixels(paper('a0'), 300, true)).toEqual([14043, 9933]);
    expect(paperPixels(paper('a2'), 300, false)).toEqual([4961, 7016]);
    expect(paperPixels(paper('a1'), 300, false)).toEqual([7016, 9933]);
    expect(paperPixels(paper('b4'), 300, false)).toEqual([2953, 4169]);
    // And back: A0's pixels are 841 × 1189 mm to the tenth.
    expect([fromPixels(9933, 300, 'mm', 1), fromPixels(14043, 300, 'mm', 1)]).toEqual([841, 1189]);
  });
});
