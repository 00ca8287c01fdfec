import type { SeekItem } from './seek-list';

/** What every pane gets from the page to place its rows on the replay's clock. */
export interface PaneProps {
  /** Epoch ms of offset 0 (the replay's first event, else the session's start). */
  start: number;
  /** Epoch ms playback is at; undefined without a replay. */
  now: number | undefined;
  onSeek: (item: SeekItem) => void;
}
