import { describe, expect, it } from 'vitest';
import { LoopGuard } from '../../src/agent/loop-guard.js';

describe('LoopGuard', () => {
  it('refuses a garment step repeated on unchanged input, in either order', () => {
    const guard = new LoopGuard();
    guard.reset('photo.jpg');
    expect(guard.check('identify_pieces', 'photo.jpg')).toBeNull();
    guard.record('identify_pieces', true, 'photo.jpg');
    expect(guard.check('generate_garment_preview', 'photo.jpg')).toBeNull();
    guard.record('generate_garment_preview', true, 'photo.jpg');
    const again = guard.check('identify_pieces', 'photo.jpg');
    expect(again?.error.code).toBe('invalid_state');
    expect(again?.error.message).toContain('识别裁片部位');
    expect(again?.error.hint).toContain('extract_and_apply_all_pieces');
    expect(guard.check('generate_garment_preview', 'photo.jpg')).not.toBeNull();
  });

  it('lets a step run again after a document change, a new photo, a failure or a new turn', () => {
    const guard = new LoopGuard();
    guard.reset(null);
    guard.record('identify_pieces', true, null);
    expect(guard.check('identify_pieces', null)).not.toBeNull();
    guard.record('get_layer_structure', true, null);
    expect(guard.check('identify_pieces', null), 'a query changes nothing').not.toBeNull();
    guard.record('set_layer_opacity', false, null);
    expect(guard.check('identify_pieces', null), 'a failed change changes nothing').not.toBeNull();
    guard.record('set_layer_opacity', true, null);
    expect(guard.check('identify_pieces', null)).toBeNull();

    guard.record('generate_garment_preview', true, null);
    expect(guard.check('generate_garment_preview', null)).not.toBeNull();
    guard.record('confirm_piece_parts', false, null);
    expect(guard.check('generate_garment_preview', null), 'a refused confirmation').not.toBeNull();
    guard.record('confirm_piece_parts', true, null);
    expect(guard.check('generate_garment_preview', null), 'parts the user confirmed').toBeNull();

    guard.record('identify_pieces', true, null);
    expect(guard.check('identify_pieces', 'new.jpg'), 'a new photo').toBeNull();

    guard.record('identify_pieces', true, 'new.jpg');
    guard.reset('new.jpg');
    expect(guard.check('identify_pieces', 'new.jpg'), 'a new user turn').toBeNull();
  });

  it('never refuses a step whose earlier run failed, nor other tools', () => {
    const guard = new LoopGuard();
    guard.reset(null);
    guard.record('identify_pieces', false, null);
    expect(guard.check('identify_pieces', null)).toBeNull();
    guard.record('verify_pattern_result', true, null);
    expect(guard.check('verify_pattern_result', null)).toBeNull();
    guard.record('get_canvas_image', true, null);
    expect(guard.check('get_canvas_image', null)).toBeNull();
  });
});
