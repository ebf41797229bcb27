// The inline "are you sure" of a destructive row action (revoke, remove, reject…): the row's button opens a small
// confirmation in place (a non-modal dialog: its question, what happens, Cancel and the action; Escape cancels),
// the action runs through useAction, and its error stays beside the row until Cancel.
import { type KeyboardEvent, useId, useState } from 'react';
import { type ConfirmProps, ErrorBox } from './ui';
import { useAction } from './use-action';

export function ConfirmRow({ label, title, body, confirmLabel, danger, onConfirm, disabled, className }: ConfirmProps) {
  const [open, setOpen] = useState(false);
  const id = useId();
  const { run, busy, error, setError } = useAction(async () => {
    await onConfirm();
    setOpen(false);
  });
  const cancel = () => {
    setError(null);
    setOpen(false);
  };
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === 'Escape') cancel();
  };
  if (!open) {
    return (
      <button
        type="button"
        className={`${danger ? 'btn-danger' : 'btn-secondary'} btn-small ${className ?? ''}`}
        data-write
        onClick={() => setOpen(true)}
        disabled={disabled}
      >
        {label}
      </button>
    );
  }
  return (
    <div role="dialog" aria-labelledby={`${id}-t`} className="confirm-row" onKeyDown={onKeyDown}>
      <strong id={`${id}-t`}>{title}</strong>
      <div className="confirm-row-body">{body}</div>
      <ErrorBox error={error} />
      <div className="confirm-row-actions">
        <button type="button" className="btn-secondary btn-small" onClick={cancel} autoFocus>
          Cancel
        </button>
        <button
          type="button"
          className={`${danger ? 'btn-danger' : 'btn-primary'} btn-small`}
          onClick={() => void run()}
          disabled={busy}
        >
          {busy ? 'Working…' : (confirmLabel ?? label)}
        </button>
      </div>
    </div>
  );
}
