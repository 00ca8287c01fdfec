import { record } from '@rrweb/record';
import { startCompressionWorker, type EncodeChunkEvents } from './compression-worker';
import { openDomChangeWindow, RELEASE_TAG, type DomChangeWindow } from './dom-change-window';
import { fieldFacts, isSensitiveField, maskText, recordableValue } from './privacy';
import type { SharedHelpers } from './shared-helpers';
import { maskSerializedFields, type SerializedNode } from './snapshot-fields';
import type {
  EmitRecordedEvent,
  RecordedEvent,
  RecorderOptions,
  Recording,
  RecordingStoppedHandler,
  StartRecording,
} from './types';

/**
 * Caps of the recorder (docs/sdk-replay.md, "Caps", says why these values and what happens when one is hit).
 */
export const RECORDER_LIMITS = {
  /** Elements in the document above which no full snapshot is taken: it would freeze the page and exceed ingest. */
  maxDomElements: 15_000,
  /** DOM changes (added and removed nodes, attribute and text changes) in one mutation batch; Sentry's `mutationLimit`. */
  maxMutationsPerBatch: 10_000,
  /** A new full snapshot after this much recording time, so a lost chunk spoils at most this much playback. */
  checkoutIntervalMs: 5 * 60_000,
} as const;

/** rrweb `EventType` and `IncrementalSource` values the recorder looks at. */
const FULL_SNAPSHOT = 2;
const INCREMENTAL_SNAPSHOT = 3;
const META = 4;
const CUSTOM = 5;
const MUTATION = 0;

interface MutationData {
  readonly source: number;
  readonly adds?: ReadonlyArray<{ readonly node: SerializedNode }>;
  readonly removes?: readonly unknown[];
  readonly texts?: readonly unknown[];
  readonly attributes?: readonly unknown[];
}

/**
 * `maskInputOptions` selecting every form field: rrweb only asks `maskInputFn` about the fields its options select
 * (`maskAllInputs: true` alone leaves out `hidden` and unlisted types), and indexes the options by tag name as well as
 * by type, so `input` covers every input type. The decision itself is `maskInputFn`'s.
 */
const EVERY_FIELD = { input: true, textarea: true, select: true };

/**
 * Starts rrweb with the resolved replay options, the SDK's privacy rules and its caps. This module is only ever
 * reached through `loadRecorder()`'s dynamic import, so rrweb stays out of the initial bundle.
 *
 * Privacy happens here, before an event leaves the recorder: form values through `maskInputFn` (and a pass over
 * serialized fields for the values rrweb copies without asking), `replay.maskTextClass` text through `maskTextFn`,
 * `replay.blockClass` elements not recorded at all, and the page address of Meta events sanitized.
 */
/** The page's compression worker, started with the first recording (a session rotation starts another recording). */
let encoder: EncodeChunkEvents | undefined;

/**
 * The recorder, with what it shares with the initial chunk (`sanitizePageUrl`, and `looksSensitive` and `MASK` for its
 * privacy rules) handed in by its loader instead of imported: shared-helpers.ts says why.
 */
export const recorderWith =
  (shared: SharedHelpers): StartRecording =>
  (options, emit, onStopped) => {
    encoder ??= startCompressionWorker(options.workerUrl);
    const recording = new PageRecording(options, emit, onStopped, encoder, shared);
    recording.start();
    return recording;
  };

class PageRecording implements Recording {
  private stopRrweb_: (() => void) | undefined;
  private domChanges_: DomChangeWindow | undefined;
  private stopped_ = false;
  private lastSnapshotMs_ = 0;
  /** Timestamp of the last event passed on: a restamped mutation never goes before it. */
  private lastEventMs_ = 0;
  private readonly startWhenParsed_ = (): void => this.start();

  constructor(
    private readonly options_: RecorderOptions,
    private readonly emit_: EmitRecordedEvent,
    private readonly onStopped_: RecordingStoppedHandler | undefined,
    readonly encode: EncodeChunkEvents,
    private readonly shared_: SharedHelpers,
  ) {}

  start(): void {
    if (this.stopped_) return;
    if (typeof document === 'undefined') {
      this.stopWith_('recorder_unavailable');
      return;
    }
    // rrweb would wait for `load`; counting elements needs the parsed document, and DOMContentLoaded is enough.
    if (document.readyState === 'loading') {
      document.addEventListener('DOMContentLoaded', this.startWhenParsed_, { once: true });
      return;
    }
    if (this.domTooLarge_()) return;
    const options = this.options_;
    const shared = this.shared_;
    const mask = (text: string, element: HTMLElement): string =>
      recordableValue(text, options.maskAllInputs || this.isSensitive_(element), shared);
    let stopRrweb: (() => void) | undefined;
    try {
      this.domChanges_ = openDomChangeWindow(record);
      stopRrweb = record<RecordedEvent>({
        emit: (event) => this.receive_(event),
        blockClass: options.blockClass,
        maskTextClass: options.maskTextClass,
        maskInputOptions: EVERY_FIELD,
        maskInputFn: mask,
        maskTextFn: (text) => maskText(text, shared),
        sampling: {
          mousemove: options.sampling.mousemove,
          scroll: options.sampling.scroll,
          input: options.sampling.input,
        },
        // Scripts, comments and <head> metadata do not change what a replay shows; leaving them out keeps snapshots small.
        slimDOMOptions: 'all',
      });
    } catch {
      // rrweb guards itself, but a broken environment (patched DOM prototypes) must not reach the host application.
    }
    if (stopRrweb === undefined) {
      this.stopWith_('recorder_unavailable');
      return;
    }
    this.stopRrweb_ = stopRrweb;
    // Stopped while rrweb emitted its first snapshot (e.g. the snapshot was too large to send).
    if (this.stopped_) this.stopRrwebOnce_();
  }

  stop(): void {
    if (this.stopped_) return;
    this.stopped_ = true;
    if (typeof document !== 'undefined') document.removeEventListener('DOMContentLoaded', this.startWhenParsed_);
    this.stopRrwebOnce_();
  }

  flushDomChanges(): void {
    if (!this.stopped_ && this.domChanges_) this.domChanges_.release();
  }

  takeFullSnapshot(): void {
    if (this.stopped_ || this.stopRrweb_ === undefined || this.domTooLarge_()) return;
    // Held changes emitted after the snapshot would add nodes the snapshot already has.
    if (this.domChanges_) this.domChanges_.release();
    try {
      record.takeFullSnapshot(true);
    } catch {
      // Only throws when rrweb is not recording, which the checks above rule out; never into the host application.
    }
  }

  private stopRrwebOnce_(): void {
    const stopRrweb = this.stopRrweb_;
    this.stopRrweb_ = undefined;
    if (this.domChanges_) this.domChanges_.stop();
    this.domChanges_ = undefined;
    try {
      stopRrweb?.();
    } catch {
      // Stopping runs during shutdown and page hide, when part of the DOM may already be gone.
    }
  }

  private stopWith_(
    reason: 'dom_too_large' | 'mutation_limit' | 'recorder_unavailable',
    measured?: number,
    limit?: number,
  ): void {
    if (this.stopped_) return;
    this.stop();
    if (this.onStopped_) this.onStopped_(measured === undefined ? { reason } : { reason, measured, limit });
  }

  /** Counting is cheap (a native walk) next to serializing; above the cap the snapshot is not taken at all. */
  private domTooLarge_(): boolean {
    const elements = document.getElementsByTagName('*').length;
    if (elements <= RECORDER_LIMITS.maxDomElements) return false;
    this.stopWith_('dom_too_large', elements, RECORDER_LIMITS.maxDomElements);
    return true;
  }

  private isSensitive_(element: Element | null | undefined): boolean {
    return element != null && isSensitiveField(fieldFacts(element, this.options_.maskTextClass), this.shared_);
  }

  private isMaskedNode_ = (id: number): boolean => {
    if (this.options_.maskAllInputs) return true;
    const node = record.mirror.getNode(id);
    // A node rrweb serialized but cannot give back: mask rather than guess.
    return node === null || node.nodeType !== 1 || this.isSensitive_(node as Element);
  };

  /** Every rrweb event passes here before it reaches the timeline. */
  private receive_(event: RecordedEvent): void {
    if (this.stopped_) return;
    if (event.type === CUSTOM && (event.data as { tag?: unknown }).tag === RELEASE_TAG) return;
    if (event.type === META) {
      const data = event.data as { href?: unknown };
      if (typeof data.href === 'string')
        event = { ...event, data: { ...data, href: this.shared_.sanitizePageUrl_(data.href) } };
    } else if (event.type === FULL_SNAPSHOT) {
      this.lastSnapshotMs_ = event.timestamp;
      maskSerializedFields((event.data as { node: SerializedNode }).node, this.isMaskedNode_, this.shared_);
    } else if (event.type === INCREMENTAL_SNAPSHOT && (event.data as MutationData).source === MUTATION) {
      const data = event.data as MutationData;
      const adds = data.adds || [];
      const changes =
        adds.length + (data.removes || []).length + (data.texts || []).length + (data.attributes || []).length;
      if (changes > RECORDER_LIMITS.maxMutationsPerBatch) {
        // The batch is not kept: what was recorded up to here still plays back consistently.
        this.stopWith_('mutation_limit', changes, RECORDER_LIMITS.maxMutationsPerBatch);
        return;
      }
      for (const added of adds) maskSerializedFields(added.node, this.isMaskedNode_, this.shared_);
      // Held changes play back when they happened, not when the window released them; but never before an event
      // already recorded (mouse positions emitted while they were held): playback follows the recorded order.
      const domChanges = this.domChanges_;
      const changedAt = domChanges?.lastChangeAt();
      if (changedAt !== undefined && changedAt < event.timestamp)
        event = { ...event, timestamp: Math.max(changedAt, this.lastEventMs_) };
    }
    this.lastEventMs_ = event.timestamp;
    this.emit_(event);
    // rrweb's own checkoutEveryNms would snapshot without the DOM size check; checking here keeps it in one place.
    if (
      event.type === INCREMENTAL_SNAPSHOT &&
      event.timestamp - this.lastSnapshotMs_ > RECORDER_LIMITS.checkoutIntervalMs
    ) {
      this.takeFullSnapshot();
    }
  }
}
