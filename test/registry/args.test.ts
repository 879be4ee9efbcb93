/** Handler argument types are derived from the definitions; these assertions are checked by `tsc`. */
import { describe, expectTypeOf, it } from 'vitest';
import type { ArgsOf } from '../../src/registry/index.js';

describe('ArgsOf', () => {
  it('maps required, optional, enum, array and defaulted parameters', () => {
    expectTypeOf<keyof ArgsOf<'get_document_info'>>().toEqualTypeOf<never>();
    expectTypeOf<ArgsOf<'move_layer'>>().toEqualTypeOf<{ name: string; dx: number; dy: number }>();
    expectTypeOf<ArgsOf<'align_layers'>>().toEqualTypeOf<{
      type: 'left' | 'right' | 'centerH' | 'top' | 'bottom' | 'centerV';
    }>();
    expectTypeOf<ArgsOf<'resize_layer'>>().toEqualTypeOf<{
      name: string;
      scale_x: number;
      scale_y?: number;
    }>();
    expectTypeOf<ArgsOf<'group_layers'>>().toEqualTypeOf<{ layer_names: string[]; group_name: string }>();
    // A default in `limits` makes the parameter always present after validation.
    expectTypeOf<ArgsOf<'add_drop_shadow'>['opacity']>().toEqualTypeOf<number>();
    expectTypeOf<ArgsOf<'trim_document'>>().toEqualTypeOf<{ type: 'transparent' | 'topleft' }>();
    expectTypeOf<ArgsOf<'create_document'>>().toEqualTypeOf<{
      width: number;
      height: number;
      resolution: number;
      name?: string;
    }>();
    expectTypeOf<ArgsOf<'extract_and_apply_all_pieces'>['pieces'][number]>().toEqualTypeOf<{
      name: string;
      type: 'solid' | 'fill_pattern' | 'theme_pattern' | 'mixed_pattern';
      color?: string;
      description?: string;
    }>();
  });
});
