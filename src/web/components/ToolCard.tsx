/** One tool call in the feed: its label (Chinese or English, as the UI), arguments, state (running / ok / error), progress and result. */
import { useStudioView } from '../context.js';
import { shortLabel } from '../forms/field-kind.js';
import { labelIn } from '../i18n.js';
import { failureWords } from '../state/failures.js';
import { type CallItem, isMcpCall } from '../state/feed.js';
import { RELOADED } from '../state/feed-store.js';
import { withToolLabels } from '../state/tool-names.js';
import { FailureDetail } from './FailureDetail.js';
import {
  CONFIRM_TOOL,
  DoubtNote,
  IDENTIFY_TOOL,
  PREVIEW_TOOL,
  PreviewActions,
  VERIFY_TOOL,
  VerifyReport,
} from './GarmentActions.js';
import { ResultImage } from './ResultImage.js';

function pretty(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value, null, 2);
}

/** The result without what the card already shows (ok flag, images). */
function resultBody(result: Readonly<Record<string, unknown>> | undefined): Record<string, unknown> {
  const { ok: _ok, images: _images, ...rest } = result ?? {};
  return rest;
}

export function ToolCard({ call }: { call: CallItem }) {
  const { studio, t, lang } = useStudioView();
  const tool = studio.tools.get(call.name);
  // A model may send a call with no name at all: the card still says what it is.
  const label = tool ? labelIn(tool, lang) : call.label || call.name.trim() || t('card.unnamed');
  const labelled = (text: string) => withToolLabels(text, studio.tools, lang);
  const args = call.args && typeof call.args === 'object' ? Object.keys(call.args as object) : [];
  // Named as the tool's form names them (宽度, 文档名称); the API names stay in the arguments themselves.
  const argNames = args.map((name) => {
    const schema = tool?.parameters.properties[name];
    return lang === 'zh' && schema ? shortLabel(name, schema) : name;
  });
  const status = t(
    call.status === 'running' ? 'card.running' : call.status === 'ok' ? 'card.ok' : 'card.error',
  );
  const body = resultBody(call.result);
  const failure = call.error && failureWords(t, call.error.code, call.error.message);
  return (
    <article class={`card ${call.status}`} aria-label={label} aria-busy={call.status === 'running'}>
      <header>
        <span class="status-dot" aria-hidden="true" />
        <h4>{label}</h4>
        {isMcpCall(call.id) && (
          <span class="card-source" title={t('card.mcpTitle')}>
            {t('card.mcp')}
          </span>
        )}
        <code title={call.name}>{call.name}</code>
        <span class="status-text">{status}</span>
      </header>
      {args.length > 0 && (
        <details class="card-args">
          <summary>
            {t('card.args')} <span class="muted">{argNames.join(lang === 'zh' ? '、' : ', ')}</span>
          </summary>
          <pre>{pretty(call.args)}</pre>
        </details>
      )}
      {call.status === 'running' && call.stage && (
        <div class="progress">
          <span>{call.stage}</span>
          {call.fraction !== undefined && (
            <progress max={1} value={call.fraction} aria-label={call.stage}>
              {Math.round(call.fraction * 100)}%
            </progress>
          )}
        </div>
      )}
      {call.status === 'error' && call.error?.code === RELOADED && <p class="muted">{t('card.reloaded')}</p>}
      {call.status === 'error' && call.error && failure && call.error.code !== RELOADED && (
        <div class="card-error" role="alert">
          <p>{labelled(failure.text)}</p>
          {call.error.hint && <p class="hint">{t('card.hint', { hint: labelled(call.error.hint) })}</p>}
          <code>{call.error.code}</code>
          {failure.detail !== undefined && <FailureDetail detail={failure.detail} />}
        </div>
      )}
      {call.images.length > 0 && (
        <div class="card-images">
          {call.images.map((image) => (
            <ResultImage key={image.url} image={image} />
          ))}
        </div>
      )}
      {call.status === 'ok' && call.name === VERIFY_TOOL && call.result && (
        <VerifyReport result={call.result} />
      )}
      {call.status === 'ok' && (call.name === IDENTIFY_TOOL || call.name === CONFIRM_TOOL) && call.result && (
        <DoubtNote result={call.result} />
      )}
      {call.status === 'ok' && call.name === PREVIEW_TOOL && <PreviewActions call={call} />}
      {call.status === 'ok' && Object.keys(body).length > 0 && (
        <details class="card-result">
          <summary>{t('card.result')}</summary>
          <pre>{pretty(body)}</pre>
        </details>
      )}
    </article>
  );
}
