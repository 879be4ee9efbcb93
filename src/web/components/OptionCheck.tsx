/** A switch of a tool's options bar: a checkbox with its words after it, as Photoshop's bars show them. */

import { useStudioView } from '../context.js';
import type { MessageKey } from '../i18n.js';

export function OptionCheck({
  words,
  checked,
  onChange,
  class: className,
}: {
  words: MessageKey;
  checked: boolean;
  onChange: (checked: boolean) => void;
  /** The checkbox's class, for a test or a style. */
  class?: string;
}) {
  const { t } = useStudioView();
  return (
    <label>
      <input
        type="checkbox"
        class={className}
        checked={checked}
        onChange={(e) => onChange((e.currentTarget as HTMLInputElement).checked)}
      />
      {t(words)}
    </label>
  );
}
