/**
 * What a plain T-shirt of productPhoto's (test/support/garment-fixtures.ts) must read as, whatever the background
 * around it: its bounds where they are drawn (±3 px), its body 300 px wide (±2 %), one colour, plain.
 */
import { expect } from 'vitest';
import { deltaE00, labOfHex } from '../../src/garment/color.js';
import type { Extraction } from '../../src/garment/types.js';

export function expectPlainShirt(
  e: Extraction,
  colour: string,
  bounds: readonly [number, number, number, number],
): void {
  const g = e.garment;
  const box = [g.x, g.y, g.x + g.w, g.y + g.h];
  for (const [i, v] of bounds.entries())
    expect(Math.abs(box[i]! - v), `bounds ${box.join(', ')}`).toBeLessThanOrEqual(3);
  expect(Math.abs(e.bodyWidth / e.analysisScale / 300 - 1), `body ${e.bodyWidth}`).toBeLessThanOrEqual(0.02);
  expect(e.kind).toBe('solid');
  expect(e.palette).toHaveLength(1);
  expect(deltaE00(e.palette[0]!.lab, labOfHex(colour))).toBeLessThan(6);
}
