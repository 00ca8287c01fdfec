import type { RecipeStep } from '../../../../wire/replay';
import { ActionExtractor } from './actions';
import { emitSpec, type ReproducedError } from './emit';
import { recipeRouting } from './recipe-routing';

export interface SpecIdentity {
  sessionId: string;
  app: string;
  /** Base URL to run against by default instead of the recorded origin (an origin, `http://localhost:3000`). */
  baseUrl?: string;
}

/**
 * Exports a recorded session as a Playwright spec (docs/replay-export.md). Chunks are fed one at a time in playback
 * order, so a long session is never held decoded in memory at once; the recipes come last, since which requests are
 * same-origin depends on the first recorded page.
 */
export class PlaywrightExport {
  private readonly actions: ActionExtractor;
  private replayId: string | undefined;

  /** `stopBeforeMs`: only the events recorded before that time (epoch ms) become steps. */
  constructor(options: { stopBeforeMs?: number } = {}) {
    this.actions = new ActionExtractor(options);
  }

  /** Feeds the events of the next chunk. A chunk of another replay than the last one starts a new page load. */
  addChunk(replayId: string, events: readonly unknown[]): void {
    if (replayId !== this.replayId) {
      this.replayId = replayId;
      this.actions.startReplay();
    }
    for (const event of events) this.actions.push(event);
  }

  /** Time of the last recorded action the steps replay, epoch ms. */
  get lastActionAt(): number | undefined {
    return this.actions.lastActionAt;
  }

  /**
   * The spec's TypeScript source; undefined when the chunks held no page load (rrweb Meta event) to start from. With
   * `reproduces`, the test fails when the page throws that error after its steps, instead of only replaying them.
   */
  finish(identity: SpecIdentity, recipes: readonly RecipeStep[], reproduces?: ReproducedError): string | undefined {
    const origin = this.actions.recordedOrigin;
    if (origin === undefined) return undefined;
    return emitSpec({
      sessionId: identity.sessionId,
      app: identity.app,
      origin,
      baseUrl: identity.baseUrl ?? origin,
      recordedAt: this.actions.startedAt,
      steps: this.actions.finish(),
      routing: recipeRouting(recipes, origin),
      ...(reproduces && { reproduces }),
    });
  }
}
