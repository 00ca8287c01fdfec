import { useEffect, useRef, useState } from 'react';
import { INACTIVITY_MS, recordedViewport } from './replay-events';
import type { ReplayEvent } from './types';

/** The part of rrweb's Replayer the page drives (rrweb-player's own controller is not shown; ours replaces it). */
interface Replayer {
  play(offset?: number): void;
  pause(offset?: number): void;
  setConfig(config: { speed?: number; skipInactive?: boolean }): void;
  getCurrentTime(): number;
  getMetaData(): { startTime: number; endTime: number; totalTime: number };
  service: { state: { value: string } };
  iframe: HTMLIFrameElement;
}

interface PlayerComponent {
  getReplayer(): Replayer;
  triggerResize(): void;
  $set(props: Record<string, unknown>): void;
  $destroy(): void;
}

/** What the page can ask of the player once it is ready. */
export interface PlayerControl {
  /** Moves to `offset` ms from the replay's start, keeping playing or paused. */
  seek(offset: number): void;
  play(): void;
  pause(): void;
  setSpeed(speed: number): void;
  setSkipInactive(on: boolean): void;
}

export interface PlaybackState {
  /** Ms from the replay's first event. */
  offset: number;
  playing: boolean;
}

/** While playing, the position is reported at most this often: rows and markers need no finer, React renders less. */
const REPORT_MS = 100;

/** Below this the recorded page is too small to read: the page scrolls instead. */
const MIN_HEIGHT = 220;
/** Space kept under the frame when nothing measures it yet (timeline and controls). */
const BELOW_FALLBACK = 140;

interface Size {
  width: number;
  height: number;
}

/** The replay's stage: the frame with its address bar, timeline and controls (what full screen shows). */
const stageOf = (host: HTMLElement): HTMLElement =>
  host.closest<HTMLElement>('.replay-stage') ?? host.parentElement ?? host;

/** An element's width inside its padding. */
function innerWidth(el: HTMLElement): number {
  const style = getComputedStyle(el);
  return el.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
}

/**
 * The frame's size: the recorded viewport's shape (so the replay fills it, scaled to fit), as wide as the stage allows
 * and short enough that the frame and what the stage holds under it (the timeline and controls) end within the window,
 * from where the frame starts on the page (on the screen, in full screen).
 */
function frameSize(host: HTMLElement, recorded: Size | undefined): Size {
  const aspect = recorded ? recorded.width / recorded.height : 16 / 9;
  const stage = stageOf(host);
  const last = stage.lastElementChild;
  const frameBottom = host.getBoundingClientRect().bottom;
  const below =
    last && last !== host ? Math.max(0, last.getBoundingClientRect().bottom - frameBottom) + 16 : BELOW_FALLBACK;
  const top = host.getBoundingClientRect().top + (document.fullscreenElement ? 0 : window.scrollY);
  const height = Math.max(MIN_HEIGHT, window.innerHeight - top - below);
  const width = Math.min(Math.max(320, innerWidth(stage)), height * aspect);
  return { width: Math.round(width), height: Math.round(width / aspect) };
}

/**
 * rrweb-player, loaded only when a replay is shown (its code and CSS are their own chunks). The recorded DOM is
 * rebuilt in rrweb's iframe sandboxed without allow-scripts (no UNSAFE_replayCanvas), so the recorded page's
 * scripts and handlers never run. Reports the playback position every REPORT_MS while it moves.
 */
export function ReplayPlayer({
  events,
  onReady,
  onPlayback,
}: {
  events: readonly ReplayEvent[];
  onReady: (control: PlayerControl) => void;
  onPlayback: (state: PlaybackState) => void;
}) {
  const host = useRef<HTMLDivElement>(null);
  const [failure, setFailure] = useState<string | undefined>();
  const callbacks = useRef({ onReady, onPlayback });
  callbacks.current = { onReady, onPlayback };

  useEffect(() => {
    const target = host.current;
    if (!target) return;
    let player: PlayerComponent | undefined;
    let frame = 0;
    let cancelled = false;
    let observer: ResizeObserver | undefined;
    let relayout = 0;
    let removeListeners = () => {};
    const recorded = recordedViewport(events);
    void (async () => {
      try {
        const [module] = await Promise.all([import('rrweb-player'), import('rrweb-player/dist/style.css')]);
        if (cancelled) return;
        // maxScale 0: a page recorded on a smaller screen is scaled up to fill the frame too; the threshold is stated
        // so that the timeline shades exactly the stretches "Skip inactivity" skips.
        player = new module.default({
          target,
          props: {
            events: events as never,
            ...frameSize(target, recorded),
            maxScale: 0,
            inactivePeriodThreshold: INACTIVITY_MS,
            autoPlay: false,
            showController: false,
            mouseTail: false,
            skipInactive: false,
          },
        }) as unknown as PlayerComponent;
      } catch (error) {
        setFailure(error instanceof Error ? error.message : String(error));
        return;
      }
      const replayer = player.getReplayer();
      replayer.iframe.setAttribute('title', 'Replay of the recorded page');
      const total = replayer.getMetaData().totalTime;
      let last: PlaybackState = { offset: -1, playing: false };
      const report = () => {
        const playing = replayer.service.state.value === 'playing';
        const offset = Math.min(total, Math.max(0, replayer.getCurrentTime()));
        // The exact time is reported (a row seeked to is at or before it), only not on every frame.
        if (
          Math.abs(offset - last.offset) >= REPORT_MS ||
          playing !== last.playing ||
          (!playing && offset !== last.offset)
        ) {
          last = { offset, playing };
          callbacks.current.onPlayback(last);
        }
        frame = requestAnimationFrame(report);
      };
      frame = requestAnimationFrame(report);
      const playing = () => replayer.service.state.value === 'playing';
      callbacks.current.onReady({
        seek: (offset) => {
          const at = Math.min(total, Math.max(0, offset));
          if (playing()) replayer.play(at);
          else replayer.pause(at);
        },
        play: () => replayer.play(replayer.getCurrentTime() >= total ? 0 : replayer.getCurrentTime()),
        pause: () => replayer.pause(),
        setSpeed: (speed) => {
          // rrweb applies a new speed on the next play, as rrweb-player's own controller does.
          const wasPlaying = playing();
          if (wasPlaying) replayer.pause();
          replayer.setConfig({ speed });
          if (wasPlaying) replayer.play(replayer.getCurrentTime());
        },
        setSkipInactive: (on) => replayer.setConfig({ skipInactive: on }),
      });
      // A new stage width, window height or full screen resizes the frame, once both rrweb-player's own full screen
      // handler and the window's resize have run (the frame's own size change comes back here and changes nothing).
      let size = frameSize(target, recorded);
      const resize = () => {
        cancelAnimationFrame(relayout);
        relayout = requestAnimationFrame(() => {
          const next = frameSize(target, recorded);
          if (next.width === size.width && next.height === size.height) return;
          size = next;
          player?.$set({ ...next });
          player?.triggerResize();
        });
      };
      observer = new ResizeObserver(resize);
      observer.observe(stageOf(target));
      window.addEventListener('resize', resize);
      document.addEventListener('fullscreenchange', resize);
      removeListeners = () => {
        window.removeEventListener('resize', resize);
        document.removeEventListener('fullscreenchange', resize);
      };
    })();
    return () => {
      cancelled = true;
      cancelAnimationFrame(frame);
      cancelAnimationFrame(relayout);
      removeListeners();
      observer?.disconnect();
      player?.$destroy();
    };
  }, [events]);

  return (
    <div className="replay-frame" ref={host}>
      {failure && (
        <p role="alert" className="state state-error">
          The replay could not be played: {failure}
        </p>
      )}
    </div>
  );
}
