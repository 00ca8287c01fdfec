import { useState } from 'react';

/** A link that opens this session's replay at `offset` (`?t=<ms>`), with a button that copies it. */
export function MomentLink({ sessionId, offset }: { sessionId: string; offset: number }) {
  const [copied, setCopied] = useState<string | undefined>();
  const href = `${location.origin}/session/${encodeURIComponent(sessionId)}?t=${Math.round(offset)}`;
  return (
    <div className="moment-link">
      <a href={href} title={href}>
        Link to this moment
      </a>
      <button
        type="button"
        onClick={() => {
          navigator.clipboard.writeText(href).then(
            () => setCopied(href),
            () => setCopied(undefined),
          );
        }}
      >
        Copy link to this moment
      </button>
      <span role="status" className="hint">
        {copied === href ? 'Copied.' : ''}
      </span>
    </div>
  );
}
