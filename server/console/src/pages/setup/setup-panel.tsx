import { useId } from 'react';
import { CopyButton } from '../../ui/copy-button';
import { Link } from 'wouter';
import { formatTime } from '../../ui/format';
import { snippets } from './snippets';
import type { FirstData, Setup } from './types';
import './setup.css';

/** The first data of the project, as a link: its first session, or its traces when the data carried no session. */
export function FirstDataNotice({ first }: { first: FirstData }) {
  return (
    <p className="first-data" role="status">
      <strong>The first event arrived</strong> ({formatTime(first.received_at)}).{' '}
      {first.session ? (
        <Link href={`/session/${encodeURIComponent(first.session.session_id)}`}>
          Open the first session ({first.session.app})
        </Link>
      ) : (
        <Link href="/traces">It carried no browser session: open the traces</Link>
      )}
    </p>
  );
}

/** A block of text to copy, with a button that copies it. */
function Snippet({ title, text }: { title: string; text: string }) {
  const id = useId();
  return (
    <section className="snippet" aria-labelledby={id}>
      <div className="snippet-head">
        <h3 id={id}>{title}</h3>
        <CopyButton text={text} label={title} />
      </div>
      <pre>
        <code>{text}</code>
      </pre>
    </section>
  );
}

function IngestKey({ setup }: { setup: Setup }) {
  const key = setup.ingest_keys.find((k) => k.key !== null);
  const create = `svc-server keys create --scope ingest --project ${setup.project.id}`;
  if (key) {
    return (
      <p>
        Ingest key <code className="ingest-key">{key.key}</code> ({key.name}): public and write-only, safe in a page.
      </p>
    );
  }
  const older = setup.ingest_keys[0];
  return (
    <p>
      {older ? (
        <>
          The ingest key <code>{older.display_prefix}…</code> ({older.name}) was shown once, when it was made.{' '}
        </>
      ) : (
        'This project has no working ingest key. '
      )}
      Make one the console can show: <code>{create}</code>
    </p>
  );
}

/**
 * What an empty project needs to receive data: its ingest key, the app names it accepts, the snippets for each way of
 * adding the SDK and the build plugin, and whether the first event has arrived (asked again until it has).
 */
export function SetupPanel({ setup }: { setup: Setup }) {
  const key = setup.ingest_keys.find((k) => k.key !== null)?.key ?? '<ingest key>';
  const app = setup.apps[0]?.name ?? 'web-app';
  const text = snippets({ key, app, ingestUrl: setup.ingest_url });
  return (
    <section className="panel setup" aria-labelledby="setup-heading">
      <h2 id="setup-heading">Send the first event to {setup.project.name}</h2>
      {setup.first_data ? (
        <FirstDataNotice first={setup.first_data} />
      ) : (
        <p className="waiting" role="status">
          Waiting for the first event… this page checks every 2 seconds and links the first session as soon as it
          arrives.
        </p>
      )}
      <IngestKey setup={setup} />
      <p>
        Apps (the SDK&apos;s <code>serviceName</code>; anything else is refused with 422):{' '}
        {setup.apps.map((a, i) => (
          <span key={a.name}>
            {i > 0 && ', '}
            <code>{a.name}</code>
            {a.aliases.length > 0 && ` (also ${a.aliases.join(', ')})`}
          </span>
        ))}
        . Add one: <code>svc-server apps create NAME --project {setup.project.id}</code>
      </p>
      <div className="snippets">
        <Snippet title="npm: initBrowserSDK" text={text.npm} />
        <Snippet title="Zero-config: @svc/browser/auto" text={text.auto} />
        <Snippet title="Script tag" text={text.script} />
        <Snippet title="Build plugin: readable stacks" text={text.build} />
      </div>
      <p className="hint">
        Every option of the SDK: docs/sdk.md in the svc checkout; the server&apos;s API:{' '}
        <a href="/docs/api">API reference</a>. Requests the server refuses (a wrong key, an app name it does not know)
        show under <Link href="/ingest-health">Ingest health</Link>.
      </p>
    </section>
  );
}
