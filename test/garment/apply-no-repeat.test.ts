/**
 * extract_and_apply_all_pieces refuses an all-over fill from a photo with no repeat in it (a placed motif, a
 * plain garment), as it refuses a motif from a photo without one: the fill would be the photo itself, its edge
 * pixels smeared into streaks across every piece it does not cover. Nothing in the document changes.
 */
import { describe, expect, it } from 'vitest';
import { garmentDocument, type PhotoKind, usePhoto } from '../support/garment-fixtures.js';
import { newSession, ok, refused } from '../support/session.js';

describe('an all-over fill from a photo without a repeat', () => {
  for (const [photo, type] of [
    ['theme', 'fill_pattern'],
    ['theme', 'mixed_pattern'],
    ['solid', 'fill_pattern'],
  ] as const satisfies readonly (readonly [PhotoKind, string])[]) {
    it(`${type} from the ${photo} photo is refused, naming the piece and what the photo was read as`, async () => {
      const session = newSession();
      await garmentDocument(session);
      await usePhoto(session, photo);
      await ok(session, 'identify_pieces');
      const preview = await ok(session, 'generate_garment_preview');
      const read = (preview.extraction as { kind: string }).kind;
      expect(read).not.toBe('fill_pattern');
      const error = await refused(
        session,
        'extract_and_apply_all_pieces',
        { pieces: [{ name: '后片', type, color: '#1d3557' }] },
        'invalid_state',
      );
      expect(error.message).toContain('“后片”');
      expect(error.message).toContain(type);
      expect(String(error.hint)).toContain(read);
      // What the preview proposed still applies.
      await ok(session, 'extract_and_apply_all_pieces', { pieces: preview.proposed_pieces });
    });
  }
});
