import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useParams } from 'wouter';
import { ApiError } from '../../api/client';
import { PageHeader } from '../../ui/layout';
import { LoadState } from '../../ui/status';
import { Tabs } from '../../ui/tabs';
import { useUrlState } from '../../ui/url-state';
import { Waterfall } from '../../ui/waterfall';
import { ConsolePane } from './console-pane';
import { Controls } from './controls';
import { ErrorsPane } from './errors-pane';
import { ExportButton } from './export-button';
import { SessionFacts } from './facts';
import { useFullscreen } from './fullscreen';
import { loadSession, type SessionData } from './load';
import { isError } from './logs';
import { markersOf } from './markers';
import { MomentLink } from './moment-link';
import { NetworkPane } from './network-pane';
import { ReplayPlayer, type PlaybackState, type PlayerControl } from './player';
import { firstFrameAt, inactivePeriods, pageVisits, urlAt } from './replay-events';
import { ReplayGaps } from './replay-gaps';
import { Timeline } from './timeline';
import { UrlBar } from './url-bar';
import { VitalsPane } from './vitals-pane';
import './session.css';

function useSessionData(id: string) {
  const [state, setState] = useState<{ data?: SessionData; error?: ApiError }>({});
  useEffect(() => {
    const controller = new AbortController();
    setState({});
    loadSession(id, controller.signal).then(
      (data) => setState({ data }),
      (error: unknown) => {
        if (controller.signal.aborted) return;
        setState({ error: error instanceof ApiError ? error : new ApiError(0, 'network', String(error)) });
      },
    );
    return () => controller.abort();
  }, [id]);
  return state;
}

/** `/session/:id`: the replay with its page address, markers and controls, and panes that follow playback. */
export default function SessionPage() {
  const { id = '' } = useParams<{ id: string }>();
  const { data, error } = useSessionData(id);
  return (
    <>
      <PageHeader title="Session">{data && <ExportButton sessionId={id} />}</PageHeader>
      <p className="hint mono session-id">{id}</p>
      {error?.status === 404 ? (
        <p role="alert" className="state state-error">
          No session {id} in this key's project: it may have expired, or belong to another project.
        </p>
      ) : (
        <LoadState loading={!data} error={error} />
      )}
      {data && <SessionView id={id} data={data} />}
    </>
  );
}

function replaySpan(events: SessionData['events']): { first: number; last: number } | undefined {
  if (events.length < 2) return undefined;
  let first = Infinity;
  let last = -Infinity;
  for (const e of events) {
    first = Math.min(first, e.timestamp);
    last = Math.max(last, e.timestamp);
  }
  return { first, last };
}

function SessionView({ id, data }: { id: string; data: SessionData }) {
  const [params] = useUrlState();
  const hasReplay = data.events.length >= 2;
  // rrweb plays its events sorted by time; chunks can hold a few out of order (custom events stamped at their cause).
  const span = useMemo(() => replaySpan(data.events), [data.events]);
  const start = span?.first ?? Date.parse(data.detail.first_seen);
  const total = span ? span.last - span.first : 0;
  // A paused replayer draws only the events before its time: nothing earlier than the first snapshot shows a page.
  const firstFrame = Math.max(0, (firstFrameAt(data.events) ?? start) - start);
  const requested = Number(params.get('t'));
  const initial = Number.isFinite(requested) && requested > 0 ? Math.min(requested, total) : firstFrame;

  const [control, setControl] = useState<PlayerControl | undefined>();
  const [playback, setPlayback] = useState<PlaybackState>({ offset: initial, playing: false });
  const [speed, setSpeed] = useState(1);
  const [skipInactive, setSkipInactive] = useState(false);

  const seek = useCallback(
    (offset: number) => {
      const at = Math.min(total, Math.max(firstFrame, offset));
      control?.seek(at);
      setPlayback((p) => ({ ...p, offset: at }));
    },
    [control, total, firstFrame],
  );
  const onReady = useCallback(
    (c: PlayerControl) => {
      setControl(c);
      c.seek(initial);
    },
    // The moment asked for in the address applies when the player first loads, not at every later ?t change.
    [],
  );

  const visits = useMemo(() => pageVisits(data.events), [data.events]);
  const errors = useMemo(() => data.logs.rows.filter(isError), [data.logs.rows]);
  const markers = useMemo(() => markersOf(data.events, visits, errors), [data.events, visits, errors]);
  const inactive = useMemo(() => inactivePeriods(data.events), [data.events]);
  const stage = useRef<HTMLDivElement>(null);
  const screen = useFullscreen(stage);
  const now = hasReplay ? start + playback.offset : undefined;
  const timing = { start, now, onSeek: (item: { at: number }) => seek(item.at - start) };

  return (
    <>
      <section className="panel" aria-label="Session facts">
        <SessionFacts detail={data.detail} />
      </section>
      <section className="panel replay" aria-labelledby="replay-heading">
        <h2 id="replay-heading">Replay</h2>
        <ReplayGaps gaps={data.gaps} />
        {hasReplay ? (
          <div className="replay-stage" ref={stage}>
            <div className="replay-window">
              <UrlBar url={urlAt(visits, start + playback.offset)} />
              <ReplayPlayer events={data.events} onReady={onReady} onPlayback={setPlayback} />
            </div>
            <Timeline
              start={start}
              total={total}
              offset={playback.offset}
              markers={markers}
              inactive={inactive}
              onSeek={seek}
            />
            <Controls
              playing={playback.playing}
              offset={playback.offset}
              total={total}
              speed={speed}
              skipInactive={skipInactive}
              fullscreen={screen.fullscreen}
              onFullscreen={screen.supported ? screen.toggle : undefined}
              onPlay={() => control?.play()}
              onPause={() => control?.pause()}
              onSpeed={(s) => {
                setSpeed(s);
                control?.setSpeed(s);
              }}
              onSkipInactive={(on) => {
                setSkipInactive(on);
                control?.setSkipInactive(on);
              }}
            >
              <MomentLink sessionId={id} offset={playback.offset} />
            </Controls>
          </div>
        ) : (
          <p className="state" role="status">
            {data.events.length === 0
              ? 'This session has no replay: recording was off, or its chunks have not arrived or have expired. Its records are listed with times from the start of the session.'
              : 'This session has too little replay to play (one event). Its records are listed with times from the start of the session.'}
          </p>
        )}
      </section>
      <section className="panel" aria-label="Session records">
        <Tabs
          label="Session records"
          param="pane"
          replace
          className="session-tabs"
          tabs={[
            {
              id: 'console',
              label: 'Console',
              count: data.logs.rows.length,
              panel: () => <ConsolePane logs={data.logs.rows} capped={data.logs.capped} {...timing} />,
            },
            {
              id: 'network',
              label: 'Network',
              count: data.recipes.rows.length,
              panel: () => <NetworkPane recipes={data.recipes.rows} {...timing} />,
            },
            {
              id: 'errors',
              label: 'Errors',
              count: errors.length,
              panel: () => <ErrorsPane logs={data.logs.rows} {...timing} />,
            },
            {
              id: 'traces',
              label: 'Traces',
              count: data.spans.rows.length,
              panel: () => (
                <Waterfall spans={data.spans.rows} activeTimeMs={now} onSelectTime={(ms) => seek(ms - start)} />
              ),
            },
            {
              id: 'vitals',
              label: 'Vitals',
              count: data.vitals.length,
              panel: () => <VitalsPane vitals={data.vitals} {...timing} />,
            },
          ]}
        />
      </section>
    </>
  );
}
