import { useId } from 'react';
import { Link } from 'wouter';
import { releasesClient } from '../../api/typed';
import { useApi } from '../../api/use-api';
import { useMe } from '../../auth/me-context';
import { DataTable, type Column } from '../../ui/data-table';
import { formatTime } from '../../ui/format';
import { PageHeader } from '../../ui/layout';
import { LoadState } from '../../ui/status';
import { useUrlState } from '../../ui/url-state';
import { ComparisonTable } from './comparison-table';
import type { Release } from './types';
import './releases.css';

const COLUMNS: ReadonlyArray<Column<Release>> = [
  { id: 'release', header: 'Release', cell: (r) => <span className="mono">{r.release}</span> },
  { id: 'first_seen', header: 'First seen', cell: (r) => formatTime(r.first_seen) },
  { id: 'sessions', header: 'Sessions', numeric: true, cell: (r) => r.sessions.toLocaleString() },
];

/** A select of the URL's parameter `name`, written on change. */
function ParamSelect({
  name,
  label,
  value,
  options,
  empty,
}: {
  name: string;
  label: string;
  value: string;
  options: readonly string[];
  empty?: string;
}) {
  const [, update] = useUrlState();
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select id={id} value={value} onChange={(e) => update({ [name]: e.currentTarget.value || null })}>
        {empty !== undefined && <option value="">{empty}</option>}
        {options.map((o) => (
          <option key={o} value={o}>
            {o}
          </option>
        ))}
      </select>
    </div>
  );
}

/** One release against the previous (or the chosen) one. */
function Comparison({ app, release, previous }: { app: string; release: string; previous: string | undefined }) {
  const query = { app, release, previous };
  const { data, error, loading } = useApi((o) => releasesClient.compare.$get({ query }, o), [query]);
  if (!data) return <LoadState loading={loading} error={error} />;
  const against = data.previous ? ` against ${data.previous.release}` : '';
  return (
    <section className="panel" aria-labelledby="comparison-heading">
      <h2 id="comparison-heading">
        Release {data.current.release}
        {against}
      </h2>
      <p className="hint">
        First seen {formatTime(data.current.first_seen)}
        {data.previous ? `; ${data.previous.release} first seen ${formatTime(data.previous.first_seen)}` : ''}. Each
        release&apos;s figures are of its newest sessions: {data.current.sessions_read} of {data.current.sessions} for{' '}
        {data.current.release}.{!data.previous && ' No release of this app was first seen before it.'}
      </p>
      <ComparisonTable comparison={data} />
      <p>
        <Link href={`/alert/new?watch_release_of=${encodeURIComponent(app)}`}>
          Alert when a release of {app} gets worse than the one before
        </Link>
      </p>
    </section>
  );
}

/**
 * `/releases`: an app's releases by first seen, newest first, and one of them (the newest by default) compared with
 * the release before it, or the one `previous` names: Web Vitals p75, span error rate, error-free sessions.
 */
export default function ReleasesPage() {
  const me = useMe();
  const [params] = useUrlState();
  const app = params.get('app') ?? me.apps[0]?.name ?? '';
  const releases = useApi(app ? (o) => releasesClient.index.$get({ query: { app } }, o) : null, [app]);
  const list = releases.data?.data ?? [];
  const release = params.get('release') ?? list[0]?.release;
  const previous = params.get('previous') ?? undefined;
  const href = (r: Release) => {
    const next = new URLSearchParams(params);
    next.set('app', app);
    next.set('release', r.release);
    next.delete('previous');
    return `/releases?${next.toString()}`;
  };
  return (
    <div className="releases-page">
      <PageHeader title="Releases" />
      <div className="release-controls">
        <ParamSelect name="app" label="App" value={app} options={me.apps.map((a) => a.name)} />
        {release && (
          <ParamSelect
            name="previous"
            label="Compare with"
            value={previous ?? ''}
            options={list.map((r) => r.release).filter((r) => r !== release)}
            empty="The previous release"
          />
        )}
      </div>
      <LoadState
        loading={releases.loading && !releases.data}
        error={releases.error}
        empty={!app || (releases.data && list.length === 0)}
      >
        No releases yet: the SDK reports one as <code>service.version</code> (its <code>serviceVersion</code> option).
      </LoadState>
      {app && release && <Comparison app={app} release={release} previous={previous} />}
      {list.length > 0 && (
        <>
          <h2>Releases of {app}</h2>
          <DataTable
            caption={`Releases of ${app}, newest first`}
            columns={COLUMNS}
            rows={list}
            rowKey={(r) => r.release}
            rowHref={href}
            activeKey={release}
          />
        </>
      )}
    </div>
  );
}
