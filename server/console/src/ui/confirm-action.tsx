/**
 * A destructive action that asks first, in place (no browser dialog): `verb` → "`verb` X?" Confirm / Cancel. The
 * question's Confirm button takes focus so the keyboard stays where the action is.
 */
export function ConfirmAction({
  verb,
  gerund,
  what,
  onConfirm,
  asking,
  setAsking,
}: {
  verb: string;
  /** "deleting", "revoking": how the question is named to screen readers ("Confirm deleting X"). */
  gerund: string;
  what: string;
  onConfirm: () => void;
  asking: boolean;
  setAsking: (asking: boolean) => void;
}) {
  if (!asking) {
    return (
      <button type="button" className="danger" onClick={() => setAsking(true)} aria-label={`${verb} ${what}`}>
        {verb}
      </button>
    );
  }
  return (
    <span className="confirm" role="group" aria-label={`Confirm ${gerund} ${what}`}>
      <span>
        {verb} {what}?
      </span>
      <button type="button" className="danger" onClick={onConfirm} autoFocus>
        Confirm {verb.toLowerCase()}
      </button>
      <button type="button" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  );
}
