/** The English studio's words where they sit beside others: a select's options read as its neighbours' do. */
import { describe, expect, it } from 'vitest';
import { translator } from '../../src/web/i18n.js';

describe('the English words of the pieces table', () => {
  it('start the turn options with a capital, as the part and type options beside them do', () => {
    const t = translator('en');
    const turns = [0, 90, 180, 270].map((v) => t(`garment.turn${v}` as Parameters<typeof t>[0]));
    expect(turns).toEqual(['Upright', '90°', 'Upside down', '270°']);
    for (const word of turns) expect(word).toMatch(/^[A-Z0-9]/);
  });
});
