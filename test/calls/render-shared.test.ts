/**
 * A document's render asked for again for the same state at the same size (the studio asks twice for each change
 * a model makes) is the render already made or under way, not a second one; any change, another size or another
 * document renders afresh.
 */
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { call, newSession, ok } from '../support/session.js';

const firstPixel = async (png: Buffer) =>
  [...(await sharp(png).removeAlpha().raw().toBuffer()).subarray(0, 3)] as number[];

describe('renders of the same state', () => {
  it('are made once for the same state and size, and afresh after a change', async () => {
    const session = newSession();
    await ok(session, 'create_document', { width: 400, height: 300, resolution: 72, name: 'card' });
    const [a, b] = await Promise.all([session.render('card', 200), session.render('card', 200)]);
    expect(b.png).toBe(a.png);
    expect((await session.render('card', 200)).png).toBe(a.png);
    // Another size is another picture.
    const small = await session.render('card', 100);
    expect(small.png).not.toBe(a.png);
    expect([small.width, small.height]).toEqual([100, 75]);

    // A call that changes the document, asked for before its render: the render shows it.
    const inverted = call(session, 'invert_colors');
    const after = await session.render('card', 200);
    expect((await inverted).ok).toBe(true);
    expect(after.png).not.toBe(a.png);
    expect(await firstPixel(after.png)).toEqual([0, 0, 0]);
    expect(await firstPixel(a.png)).toEqual([255, 255, 255]);

    // Undo brings back the first state: its picture is rendered again (one is kept a document), and right.
    await ok(session, 'undo');
    const back = await session.render('card', 200);
    expect(await firstPixel(back.png)).toEqual([255, 255, 255]);

    // Another document of the same size has its own picture.
    await ok(session, 'create_document', { width: 400, height: 300, resolution: 72, name: 'other' });
    await ok(session, 'invert_colors');
    expect(await firstPixel((await session.render('other', 200)).png)).toEqual([0, 0, 0]);
    expect(await firstPixel((await session.render('card', 200)).png)).toEqual([255, 255, 255]);
  });

  it('keeps no finished render over 32 MB: one at 100 % zoom is shared only while it is made', async () => {
    const session = newSession();
    // Noise does not compress: 3400² px of it is a PNG of about 33 MB.
    const side = 3400;
    const noise = Buffer.alloc(side * side * 3);
    let seed = 7;
    for (let i = 0; i < noise.length; i++) {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      noise[i] = seed >> 23;
    }
    await sharp(noise, { raw: { width: side, height: side, channels: 3 } })
      .png({ compressionLevel: 1 })
      .toFile(`${session.workspace.root}/noise.png`);
    await ok(session, 'open_document', { path: 'noise.png' });
    const name = (await session.documents())[0]!.name;
    const [a, b] = await Promise.all([session.render(name, side), session.render(name, side)]);
    expect(a.png.byteLength).toBeGreaterThan(32 * 1024 * 1024);
    // Compared as booleans: a failing comparison of two 33 MB buffers would print them.
    expect(b.png === a.png).toBe(true);
    const again = await session.render(name, side);
    expect(again.png === a.png).toBe(false);
    expect(again.png.equals(a.png)).toBe(true);
  });
});
