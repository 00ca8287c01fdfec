import { useEffect, useRef, useState } from 'react';
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

/** The replay frame's size: the column's width, 16:9, no taller than most of the window. */
function frameSize(host: HTMLElement): { width: number; height: number } {
  const width = Math.max(320, host.clientWidth);
  return { width, height: Math.round(Math.min((width * 9) / 16, window.innerHeight * 0.6)) };
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
    void (async () => {
      try {
        const [module] = await Promise.all([import('rrweb-player'), import('rrweb-player/dist/style.css')]);
        if (cancelled) return;
        player = new module.default({
          target,
          props: { events: events as never, ...frameSize(target), autoPlay: false, showController: false, mouseTail: false, skipInactive: false },
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
        if (Math.abs(offset - last.offset) >= REPORT_MS || playing !== last.playing || (!playing && offset !== last.offset)) {
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
      // Only a new column width resizes the frame (the frame's own height change comes back here too).
      let width = target.clientWidth;
      observer = new ResizeObserver(() => {
        if (target.clientWidth === width) return;
        width = target.clientWidth;
        player?.$set(frameSize(target));
        player?.triggerResize();
      });
      observer.observe(target);
    })();
    return () => {
      cancelled = true;
      cancelAnimationFrame(frame);
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
