import type { InferResponseType } from 'hono/client';
import { logFramesClient } from '../api/typed';
import { useApi } from '../api/use-api';
import { LoadState } from './status';
import './stack.css';

const frames = logFramesClient.logs[':id'].frames;
/** An error log's stack as the server symbolicates it; an issue's newest error has the same schema. */
type LogFrames = InferResponseType<typeof frames.$get, 200>;
type Frame = LogFrames['frames'][number];
type OriginalFrame = NonNullable<Frame['original']>;
type MissingMaps = NonNullable<LogFrames['missing_maps']>;

/** The original lines around a frame, numbered, the frame's own line marked (a `<mark>`, and "error line" for readers). */
function SourceContext({ original }: { original: OriginalFrame }) {
  if (!original.context) return null;
  const { start_line: start, lines } = original.context;
  return (
    <pre className="source">
      <code>
        {lines.map((text, i) => {
          const n = start + i;
          const content = (
            <>
              <span className="n" aria-hidden="true">
                {n}
              </span>
              {text || ' '}
            </>
          );
          return n === original.line ? (
            <mark key={n} className="l" aria-label={`line ${n}, the error line`}>
              {content}
            </mark>
          ) : (
            <span key={n} className="l">
              {content}
            </span>
          );
        })}
      </code>
    </pre>
  );
}

/** One frame: its original function and file:line:col when a source map covered it, the minified position beside. */
function FrameItem({ frame }: { frame: Frame }) {
  const minified = `${frame.url}:${frame.line}:${frame.column}`;
  const o = frame.original;
  if (!o) {
    return (
      <li className="frame">
        <code className="fn">{frame.function}</code> <span className="where">{minified}</span>
      </li>
    );
  }
  return (
    <li className="frame">
      <code className="fn">{o.function ?? frame.function}</code>{' '}
      <span className="where">{`${o.file}:${o.line}:${o.column}`}</span>
      <SourceContext original={o} />
      <div className="where minified">minified: {`${frame.function} at ${minified}`}</div>
    </li>
  );
}

/** Consecutive frames alike in being the app's or not; runs outside the app fold away (dependencies, SDK, engine). */
function runsOf(frames: Frame[]): Frame[][] {
  const runs: Frame[][] = [];
  for (const f of frames) {
    const run = runs.at(-1);
    if (run && run[0]!.in_app === f.in_app) run.push(f);
    else runs.push([f]);
  }
  return runs;
}

/** Why frames read as minified: the app's files no uploaded map covers, and the CLI line that uploads their maps. */
function MissingMapsNote({ missing }: { missing: NonNullable<MissingMaps> }) {
  return (
    <div className="missing-maps" role="note" aria-label="Source maps missing">
      <p>
        <strong>No source map covers {missing.files.length === 1 ? 'this file' : 'these files'} of the app</strong>, so
        the frames read as minified:
      </p>
      <ul>
        {missing.files.map((f) => (
          <li key={f.url}>
            <code>{f.url}</code>
            {f.debug_id && <span className="hint"> debug ID {f.debug_id}</span>}
          </li>
        ))}
      </ul>
      <p>
        Upload the maps of that build from its output folder (the one served at the site&apos;s root); this issue&apos;s
        errors then move to the issue of the original code:
      </p>
      <pre className="upload-command">
        <code>{missing.upload_command}</code>
      </pre>
      {missing.release === null && (
        <p className="hint">
          The error names no release: name one with the SDK&apos;s <code>serviceVersion</code> (the build plugin does),
          and the same with <code>--release</code>.
        </p>
      )}
    </div>
  );
}

/** A stack symbolicated by the server, innermost frame first, frames outside the app folded; the raw text below. */
export function Stack({
  stack,
}: {
  stack: { raw: string | null; frames: Frame[]; missing_maps?: MissingMaps | null };
}) {
  if (stack.raw === null) return <p className="hint">This error came without a stack.</p>;
  let offset = 0;
  return (
    <>
      {stack.missing_maps && <MissingMapsNote missing={stack.missing_maps} />}
      {stack.frames.length === 0 && <p className="hint">No frame of the stack could be read.</p>}
      {runsOf(stack.frames).map((run) => {
        const key = offset;
        offset += run.length;
        const list = (
          <ol className="frames" aria-label={run[0]!.in_app ? 'Frames in the app' : 'Frames not in the app'}>
            {run.map((f, i) => (
              <FrameItem key={i} frame={f} />
            ))}
          </ol>
        );
        if (run[0]!.in_app) return <div key={key}>{list}</div>;
        return (
          <details key={key}>
            <summary>
              {run.length} {run.length === 1 ? 'frame' : 'frames'} not in the app
            </summary>
            {list}
          </details>
        );
      })}
      <details>
        <summary>The stack as the browser sent it</summary>
        <pre className="raw-stack">
          <code>{stack.raw}</code>
        </pre>
      </details>
    </>
  );
}

/**
 * One error log's stack as the server symbolicates it with the project's source maps (`GET /control-plane/logs/{id}/
 * frames`, server/src/logs/routes.ts), asked for when it is shown.
 */
export function LogErrorStack({ logId, hasStack }: { logId: number; hasStack: boolean }) {
  const { data, error, loading } = useApi(hasStack ? (o) => frames.$get({ param: { id: String(logId) } }, o) : null, [
    logId,
  ]);
  if (!hasStack) return <p className="hint">No stack trace was recorded for this error.</p>;
  if (!data) return <LoadState loading={loading} error={error} />;
  return <Stack stack={data} />;
}
