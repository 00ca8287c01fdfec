import { useState } from 'react';
import { parseResponse } from 'hono/client';
import { ApiError } from '../../api/client';
import { sessionsClient } from '../../api/typed';
import { sessionParam } from './load';

/**
 * Saves the session as a Playwright spec. The export needs the key, which goes only in the Authorization header,
 * so the file is fetched and handed to the browser as a Blob rather than linked.
 */
export function ExportButton({ sessionId }: { sessionId: string }) {
  const [state, setState] = useState<string | undefined>();
  const download = async () => {
    setState('Exporting…');
    try {
      const spec = await parseResponse(sessionsClient[':id'].playwright.$get(sessionParam(sessionId)));
      const url = URL.createObjectURL(new Blob([spec], { type: 'text/plain' }));
      const link = document.createElement('a');
      link.href = url;
      link.download = `session-${sessionId.replace(/[^\w.-]/g, '_')}.spec.ts`;
      link.click();
      // The download has started from the URL; keep it a little for slow browsers anyway.
      setTimeout(() => URL.revokeObjectURL(url), 60_000);
      setState('Playwright test downloaded.');
    } catch (error) {
      setState(`Export failed: ${error instanceof ApiError ? error.message : String(error)}`);
    }
  };
  return (
    <>
      <button type="button" onClick={() => void download()}>
        Download Playwright test
      </button>
      {state && (
        <span role="status" className="hint">
          {state}
        </span>
      )}
    </>
  );
}
