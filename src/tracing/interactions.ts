import { ROOT_CONTEXT, trace, type Context, type Tracer } from '@opentelemetry/api';
import { getElementXPath, StackContextManager } from '@opentelemetry/sdk-trace-web';
import type { SdkCore } from '../core/core';
import type { Interaction, InteractionContext } from '../core/integration';
import { targetName } from './target-name';

/** Events that start an interaction span. */
const INTERACTION_EVENTS = ['click', 'submit'];

/** Path, hash and search, in the order OpenTelemetry's user-interaction instrumentation names navigations. */
const where = (): string => `${location.pathname}${location.hash}${location.search}`;

/**
 * The stack context manager (zone.js is never loaded; DESIGN.md fact 5), plus one rule: while a click or submit is
 * being dispatched, code that runs outside any other context (every listener of that event, and the microtasks they
 * queue, which run before the dispatch ends) runs inside the interaction's span. So the fetch, XHR or log a
 * handler makes joins the click's trace, without wrapping any listener.
 */
export class InteractionContextManager extends StackContextManager implements InteractionContext {
  interaction: Interaction | undefined;

  override active(): Context {
    let interaction = this.interaction;
    // eventPhase is NONE (0) once the event's dispatch is over.
    while (interaction !== undefined && interaction.event.eventPhase === 0) interaction = interaction.outer;
    this.interaction = interaction;
    const active = super.active();
    return active === ROOT_CONTEXT && interaction !== undefined ? interaction.context : active;
  }
}

/**
 * One span per click or submit on an enabled HTML element, as OpenTelemetry's user-interaction instrumentation
 * names it (the event type) with its attributes (`event_type`, `target_element`, `target_xpath`, `url.full`) and
 * `target.name`, the name a person reads on what was clicked (target-name.ts),
 * started by a capture listener on window, so before the app's listeners. It ends at the end of the task that
 * dispatched the event; when the page's URL changed by then (a client-side route), it is named
 * `Navigation: <path>`, as the instrumentation names it. The instrumentation wraps every listener and makes a span
 * per listener (three nested `click` spans for one click in a React app); one listener on window makes one span per
 * event and patches nothing, so shutdown removes it entirely.
 */
export function traceInteractions(core: SdkCore, tracer: Tracer, manager: InteractionContext): void {
  const start = (event: Event): void => {
    const { target, type } = event;
    if (!(target instanceof HTMLElement) || target.hasAttribute('disabled')) return;
    const name = targetName(target, core.config.replay.maskTextClass);
    const span = tracer.startSpan(type, {
      attributes: {
        event_type: type,
        target_element: target.tagName,
        target_xpath: getElementXPath(target, true),
        'url.full': location.href,
        ...(name === undefined ? {} : { 'target.name': name }),
      },
    });
    manager.interaction = { event, context: trace.setSpan(manager.active(), span), outer: manager.interaction };
    const before = where();
    setTimeout(() => {
      const after = where();
      if (after !== before) span.updateName(`Navigation: ${after}`);
      span.end();
    });
  };
  for (const type of INTERACTION_EVENTS) core.teardown.listen(window, type, start, { capture: true });
}
