/**
 * Handler argument types, derived from the definitions at the type level so a tool's parameters are
 * never written twice. After validation, parameters with a default in `limits` are always present.
 */
import type { ToolDefinition } from './types.js';

type Simplify<T> = { [K in keyof T]: T[K] } & {};

type ScalarValue<P> = P extends { readonly type: 'string'; readonly enum: readonly (infer E)[] }
  ? E
  : P extends { readonly type: 'string' }
    ? string
    : P extends { readonly type: 'number' }
      ? number
      : P extends { readonly type: 'boolean' }
        ? boolean
        : never;

type ItemValue<I> = I extends {
  readonly type: 'object';
  readonly properties: infer Props;
  readonly required: readonly (infer R)[];
}
  ? ObjectValue<Props, R, never>
  : ScalarValue<I>;

type ParamValue<P> = P extends { readonly type: 'array'; readonly items: infer I }
  ? ItemValue<I>[]
  : P extends { readonly type: 'object' }
    ? Record<string, unknown>
    : ScalarValue<P>;

type ObjectValue<Props, Required, Defaulted> = Simplify<
  { -readonly [K in keyof Props as K extends Required | Defaulted ? K : never]: ParamValue<Props[K]> } & {
    -readonly [K in keyof Props as K extends Required | Defaulted ? never : K]?: ParamValue<Props[K]>;
  }
>;

type DefaultedKeys<T> = T extends { readonly limits: infer L }
  ? { [K in keyof L]: L[K] extends { readonly default: unknown } ? K : never }[keyof L]
  : never;

/** The validated arguments a tool's handler receives. */
export type ToolArgs<T extends ToolDefinition> = ObjectValue<
  T['parameters']['properties'],
  T['parameters']['required'][number],
  DefaultedKeys<T>
>;
