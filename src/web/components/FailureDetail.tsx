/** A failure's own text, folded under 详细信息 when the studio words the failure itself (see state/failures.ts). */
import { useStudioView } from '../context.js';

export function FailureDetail({ detail }: { detail: string }) {
  const { t } = useStudioView();
  return (
    <details class="failure-detail">
      <summary>{t('failure.detail')}</summary>
      <pre>{detail}</pre>
    </details>
  );
}
