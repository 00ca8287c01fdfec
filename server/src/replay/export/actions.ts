import { MASK, REPLAY_EVENT_TAGS } from '../../../../wire/replay';
import { DomMirror } from './dom-mirror';
import { originOf, relativeUrl } from './recorded-url';
import { EventType, IncrementalSource, isId, isObject, MouseInteraction, readEvent, type JsonObject } from './rrweb';
import { describeElement, inputType, locateClick, locateField, type Locator } from './selector';

/** One line of the exported test, in the order the user did it. URLs are already relative to the recorded origin. */
export type Step =
  | { kind: 'goto' | 'waitForURL' | 'expectURL'; url: string }
  | { kind: 'click'; locator: Locator }
  | { kind: 'fill' | 'selectOption'; locator: Locator; value: string }
  | { kind: 'check'; locator: Locator; checked: boolean }
  | { kind: 'note'; text: string };

/** Input types whose value must be well-formed: a masked `********` cannot be typed into them. */
const FORMATTED_INPUT_TYPES = new Set(['number', 'range', 'date', 'datetime-local', 'month', 'week', 'time', 'color']);
/** Input types a click only focuses: the value their input events carry is what gets replayed. */
const CLICK_IS_FOCUS = new Set([
  'text',
  'search',
  'email',
  'url',
  'tel',
  'password',
  'checkbox',
  'radio',
  ...FORMATTED_INPUT_TYPES,
]);

/**
 * Turns a session's rrweb events, fed in playback order, into test steps: page loads, clicks on the elements they hit
 * (located in a DOM rebuilt from the snapshots and mutations up to that moment), the last value typed in each field
 * between two other actions, and the URL an app-driven navigation led to after a click.
 */
export class ActionExtractor {
  private readonly mirror = new DomMirror();
  private readonly steps: Step[] = [];
  /** Field steps since the last other action, by node id: only a field's last value is replayed. */
  private readonly fields = new Map<number, Step>();
  private navigation: string | undefined;
  private lastAction: 'page' | 'click' | 'input' | 'skipped' | undefined;
  private pageLoadDue = false;
  private origin: string | undefined;
  private firstTimestamp: number | undefined;
  /** Time of the event being read, and of the last one that became a click, field or page-load step. */
  private eventTime = 0;
  private lastActionTime: number | undefined;

  /** `stopBeforeMs`: events from that time on are ignored (a reproduction test stops before the error, epoch ms). */
  constructor(private readonly options: { stopBeforeMs?: number } = {}) {}

  /** The events that follow belong to the next replay of the session: a new page load. */
  startReplay(): void {
    this.pageLoadDue = true;
  }

  push(raw: unknown): void {
    const event = readEvent(raw);
    if (!event || event.timestamp >= (this.options.stopBeforeMs ?? Infinity)) return;
    this.firstTimestamp ??= event.timestamp;
    this.eventTime = event.timestamp;
    if (event.type === EventType.Meta) this.onPageLoad(event.data);
    else if (event.type === EventType.FullSnapshot) this.mirror.load(event.data.node);
    else if (event.type === EventType.IncrementalSnapshot) this.onIncremental(event.data);
    else if (event.type === EventType.Custom) this.onCustom(event.data);
  }

  /** The steps, once every event was pushed. */
  finish(): Step[] {
    this.flush();
    return this.steps;
  }

  /** Origin of the first recorded page: what the test's URLs are relative to. */
  get recordedOrigin(): string | undefined {
    return this.origin;
  }

  /** Time of the first event, epoch ms. */
  get startedAt(): number | undefined {
    return this.firstTimestamp;
  }

  /** Time of the last recorded action the steps replay (page load, click or field input), epoch ms. */
  get lastActionAt(): number | undefined {
    return this.lastActionTime;
  }

  private onPageLoad(data: JsonObject): void {
    // rrweb repeats Meta with every full snapshot it takes of the same page; only a replay's first is a page load.
    if (!this.pageLoadDue || typeof data.href !== 'string') return;
    this.pageLoadDue = false;
    // A click that led to an in-app navigation did not load this page: the user did (reload, address bar).
    const followsClick = this.lastAction === 'click' && this.navigation === undefined;
    this.flush();
    const first = this.origin === undefined;
    this.origin ??= originOf(data.href);
    if (this.origin === undefined) return;
    const url = relativeUrl(data.href, this.origin);
    this.steps.push({ kind: !first && followsClick ? 'waitForURL' : 'goto', url });
    this.lastAction = 'page';
    this.lastActionTime = this.eventTime;
  }

  private onIncremental(data: JsonObject): void {
    if (data.source === IncrementalSource.Mutation) this.mirror.applyMutation(data);
    else if (
      data.source === IncrementalSource.MouseInteraction &&
      data.type === MouseInteraction.Click &&
      isId(data.id)
    )
      this.onClick(data.id);
    else if (data.source === IncrementalSource.Input && isId(data.id) && data.userTriggered !== false)
      this.onInput(data.id, data);
  }

  private onClick(id: number): void {
    const located = locateClick(this.mirror, id);
    if ('skipped' in located) return this.skip(`click skipped: ${located.skipped}`);
    const { element, locator } = located;
    const tag = element.tagName;
    // Focusing a field or toggling it through its label: the field's input events replay what that did.
    if (
      tag === 'label' ||
      tag === 'select' ||
      tag === 'textarea' ||
      (tag === 'input' && CLICK_IS_FOCUS.has(inputType(element)))
    )
      return;
    if (tag === 'input' && inputType(element) === 'file')
      return this.skip('click on a file input skipped: file uploads are not replayed');
    if (tag === 'body' || tag === 'html') return this.skip('click on the page background skipped');
    this.flush();
    this.steps.push({ kind: 'click', locator });
    this.lastAction = 'click';
    this.lastActionTime = this.eventTime;
  }

  private onInput(id: number, data: JsonObject): void {
    this.flushNavigation();
    this.lastAction = 'input';
    this.lastActionTime = this.eventTime;
    const located = locateField(this.mirror, id);
    if ('skipped' in located)
      return void this.fields.set(id, { kind: 'note', text: `input skipped: ${located.skipped}` });
    const { element, locator } = located;
    const text = typeof data.text === 'string' ? data.text : '';
    const type = element.tagName === 'input' ? inputType(element) : element.tagName;
    let step: Step | undefined;
    if (type === 'checkbox') step = { kind: 'check', locator, checked: data.isChecked === true };
    // rrweb reports the radios a choice unchecked too; checking the chosen one replays that.
    else if (type === 'radio') step = data.isChecked === true ? { kind: 'check', locator, checked: true } : undefined;
    else if (type === 'file')
      step = { kind: 'note', text: `${describeElement(element)}: file uploads are not replayed` };
    else if (text === MASK && (type === 'select' || FORMATTED_INPUT_TYPES.has(type))) {
      step = {
        kind: 'note',
        text: `${describeElement(element)}: its value was masked when recorded and "${MASK}" is not a valid ${type} value`,
      };
    } else if (type === 'select') step = { kind: 'selectOption', locator, value: text };
    else step = { kind: 'fill', locator, value: text };
    if (step) this.fields.set(id, step);
  }

  private onCustom(data: JsonObject): void {
    const payload = isObject(data.payload) ? data.payload : {};
    if (data.tag === REPLAY_EVENT_TAGS.navigation && typeof payload.url === 'string' && this.origin !== undefined) {
      this.flushFields();
      const url = relativeUrl(payload.url, this.origin);
      if (this.lastAction === 'click') this.navigation = url;
      else
        this.steps.push({
          kind: 'note',
          text: `the page moved to ${url} (${String(payload.trigger)}) without a replayed click: not checked`,
        });
    } else if (data.tag === REPLAY_EVENT_TAGS.recordingStopped) {
      this.flush();
      this.steps.push({
        kind: 'note',
        text: `the recording stopped here (${String(payload.reason)}): later actions were not recorded`,
      });
    }
  }

  private skip(text: string): void {
    this.flush();
    this.steps.push({ kind: 'note', text });
    this.lastAction = 'skipped';
  }

  private flush(): void {
    this.flushFields();
    this.flushNavigation();
  }

  private flushFields(): void {
    this.steps.push(...this.fields.values());
    this.fields.clear();
  }

  private flushNavigation(): void {
    if (this.navigation !== undefined) this.steps.push({ kind: 'expectURL', url: this.navigation });
    this.navigation = undefined;
  }
}
