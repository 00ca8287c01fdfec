import { useState } from 'react';

/** Copies `text` to the clipboard; says "Copied" once it is there. `label` names what is copied for screen readers. */
export function CopyButton({ text, label }: { text: string; label: string }) {
  const [copied, setCopied] = useState(false);
  const copy = () =>
    navigator.clipboard.writeText(text).then(
      () => setCopied(true),
      () => setCopied(false),
    );
  return (
    <button type="button" onClick={() => void copy()} aria-label={`Copy: ${label}`}>
      {copied ? 'Copied' : 'Copy'}
    </button>
  );
}
