import { formatDuration } from '../../ui/format';
import { KeyValues } from '../../ui/key-values';
import { Badge } from '../../ui/status';
import { formatOffset } from './offset';
import type { PaneProps } from './pane-props';
import { SeekList } from './seek-list';
import type { RecipeRow } from './types';

/** The URL without the console's own origin, which the recorded page usually shares with its API. */
function shortUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.host}${parsed.pathname}${parsed.search}`;
  } catch {
    return url;
  }
}

const statusTone = (status: number) => (status === 0 || status >= 500 ? 'bad' : status >= 400 ? 'warn' : 'good');

function Headers({ title, headers }: { title: string; headers: Record<string, string> }) {
  const entries = Object.entries(headers);
  return (
    <>
      <h4>{title}</h4>
      <KeyValues caption={title} entries={entries} none="None recorded." />
    </>
  );
}

function Body({ title, body, truncated }: { title: string; body: string | null | undefined; truncated?: boolean }) {
  return (
    <>
      <h4>{title}</h4>
      {body ? <pre className="body">{body}</pre> : <p className="hint">No body recorded.</p>}
      {truncated && <p className="hint">Cut at the SDK's limit.</p>}
    </>
  );
}

/** A request's recipe in full: what was sent and received, as the SDK recorded it (secrets redacted at capture). */
function RequestDetail({ step, start }: { step: RecipeRow; start: number }) {
  return (
    <div className="request-detail">
      <dl className="facts">
        <dt>Request</dt>
        <dd className="mono">
          {step.method} {step.url}
        </dd>
        <dt>Status</dt>
        <dd>{step.status === 0 ? `no response${step.error ? ` (${step.error})` : ''}` : step.status}</dd>
        <dt>Started</dt>
        <dd>{formatOffset(step.ts - start)}</dd>
        <dt>Duration</dt>
        <dd>{formatDuration(step.durationMs)}</dd>
        {step.traceparent && (
          <>
            <dt>traceparent</dt>
            <dd className="mono">{step.traceparent}</dd>
          </>
        )}
      </dl>
      <div className="grid-2">
        <section aria-label="Request">
          <Headers title="Request headers" headers={step.requestHeaders} />
          <Body title="Request body" body={step.requestBody} truncated={step.requestBodyTruncated} />
        </section>
        <section aria-label="Response">
          <Headers title="Response headers" headers={step.responseHeaders} />
          <Body title="Response body" body={step.responseBody} truncated={step.responseBodyTruncated} />
        </section>
      </div>
    </div>
  );
}

/** The session's requests from its recipes; a row seeks and opens the request's detail. */
export function NetworkPane({ recipes, ...timing }: PaneProps & { recipes: readonly RecipeRow[] }) {
  const items = recipes.map((step) => ({ key: String(step.id), at: step.ts, step }));
  return (
    <SeekList
      label="Network requests"
      items={items}
      {...timing}
      expandable
      empty="No requests were recorded in this session."
      row={({ step }) => (
        <>
          <span className="method">{step.method}</span>
          <span className="row-text mono">{shortUrl(step.url)}</span>
          <Badge tone={statusTone(step.status)}>{step.status === 0 ? 'failed' : step.status}</Badge>
          <span className="numeric">{formatDuration(step.durationMs)}</span>
        </>
      )}
      detail={({ step }) => <RequestDetail step={step} start={timing.start} />}
    />
  );
}
