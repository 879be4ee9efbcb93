/**
 * The studio's own modal question (closing a tab with unsaved changes, deleting a file), in the studio's words
 * and look: a browser's confirm box says OK/Cancel in the browser's language, and its OK cannot be told apart
 * from the safe answer. Esc, or the browser closing it, answers nothing: `onCancel`.
 */
import { useEffect, useRef } from 'preact/hooks';

export interface Answer {
  readonly label: string;
  /** `primary` is the everyday blue; `danger` the red of an answer that loses something for good. */
  readonly tone?: 'primary' | 'danger';
  /** This answer has the keys when the question opens: the one that loses nothing. */
  readonly focused?: boolean;
  /** Set apart at the start of the row, as 不保存 is from 取消 and 保存并关闭. */
  readonly apart?: boolean;
  choose(): void;
}

export interface Question {
  readonly text: string;
  /** What follows from the answers, under the question. */
  readonly hint?: string;
  readonly answers: readonly Answer[];
}

function AnswerButton({ answer }: { answer: Answer }) {
  return (
    <button
      type="button"
      class={answer.tone === 'danger' ? 'primary danger' : answer.tone === 'primary' ? 'primary' : undefined}
      // biome-ignore lint/a11y/noAutofocus: the dialog's safe answer has the keys, as in every desktop app
      autoFocus={answer.focused === true}
      onClick={answer.choose}
    >
      {answer.label}
    </button>
  );
}

/** Open while `question` is set; its id prefix names the question and hint for assistive technology. */
export function AskDialog({
  id,
  question,
  onCancel,
}: {
  id: string;
  question: Question | null;
  onCancel(): void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const box = dialog.current;
    if (question && box && !box.open) box.showModal();
    else if (!question && box?.open) box.close();
  }, [question]);
  return (
    <dialog
      ref={dialog}
      class="ask-dialog"
      aria-labelledby={`${id}-text`}
      aria-describedby={question?.hint ? `${id}-hint` : undefined}
      onClose={onCancel}
    >
      {question && (
        <>
          <p id={`${id}-text`} class="ask-dialog-text">
            {question.text}
          </p>
          {question.hint && (
            <p id={`${id}-hint`} class="ask-dialog-text muted">
              {question.hint}
            </p>
          )}
          <div class="button-row">
            {question.answers
              .filter((a) => a.apart)
              .map((a) => (
                <AnswerButton key={a.label} answer={a} />
              ))}
            <span class="spacer" />
            {question.answers
              .filter((a) => !a.apart)
              .map((a) => (
                <AnswerButton key={a.label} answer={a} />
              ))}
          </div>
        </>
      )}
    </dialog>
  );
}
