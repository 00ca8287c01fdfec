// What one evaluation decides about a rule from its state, the value measured and its open incident (docs/alerts.md,
// "Evaluation"); evaluator.ts acts on it. Pure: the moves are made by lifecycle.ts.
import { conditionHolds, isRecovered } from '../query';
import type { AlertRule, RuleQuery, RuleState } from '../rule';

/** What one evaluation measured: the value over the window, and the bound the condition compares it with. */
export interface Reading {
  /** null: no data in the window. */
  value: number | null;
  /** A threshold rule's value; a change rule's baseline moved by its percentage; null without a baseline. */
  bound: number | null;
  /** A change rule's baseline (the same window a day or week before, or the previous release); else null. */
  baseline: number | null;
}

/** Why a rule's incident is open: its condition held, or its signal stopped arriving (`no_data: "alert"`). */
export type IncidentCause = 'condition' | 'no_data';

/** The rule's incident that is open now, as the evaluator sees it. */
export interface OpenIncident {
  id: string;
  cause: IncidentCause;
}

export type Move =
  | { kind: 'open'; cause: IncidentCause }
  /** The open incident stays: it may escalate, and its evidence follows the value. */
  | { kind: 'follow' }
  | { kind: 'resolve'; why: string };

export interface Decision {
  state: RuleState;
  stateSinceMs: number;
  pendingSinceMs: number | null;
  /** Made in order: data coming back resolves a no-data incident before the condition may open one. */
  moves: Move[];
}

type RuleSnapshot = RuleQuery &
  Pick<AlertRule, 'state' | 'stateSinceMs' | 'pendingSinceMs' | 'enabled' | 'noData'> & {
    /** The incident of the rule's current episode, open or resolved by a person meanwhile (then it is not reopened). */
    incidentId: string | null;
  };

const resolve = (why: string): Move => ({ kind: 'resolve', why });
const FOLLOW: Move = { kind: 'follow' };

/**
 * The rule's state as its open incident says: an incident is opened and resolved only by a move, so an open one is
 * the truth even when the state that should have recorded it was not saved (a process that lost its lease mid-way).
 */
function currentState(rule: RuleSnapshot, open: OpenIncident | undefined): RuleState {
  if (!open) return rule.state;
  return open.cause === 'condition' ? 'firing' : 'no_data';
}

/**
 * ok → pending (the condition holds, `for_seconds` not yet over) → firing (an incident opens) → ok once recovered (it
 * resolves). No data: `no_data`, opening an incident after `for_seconds` when the rule says `alert`; a firing rule keeps
 * firing through a gap (an app that stopped sending has not recovered). A disabled rule is `ok` and its incident
 * resolved. An incident a person resolved is not reopened until the episode ends (back to `ok`).
 */
export function decide(rule: RuleSnapshot, reading: Reading, open: OpenIncident | undefined, nowMs: number): Decision {
  const state = currentState(rule, open);
  const to = (next: RuleState, moves: Move[], pendingSinceMs: number | null = null): Decision => ({
    state: next,
    stateSinceMs: next === rule.state ? rule.stateSinceMs : nowMs,
    pendingSinceMs,
    moves,
  });
  const forMs = rule.forSeconds * 1000;
  if (!rule.enabled) return to('ok', open ? [resolve('rule turned off')] : []);

  const { value, baseline } = reading;
  if (value === null) {
    if (state === 'firing') return to('firing', open ? [FOLLOW] : []);
    if (open) return to('no_data', [FOLLOW]);
    const sinceMs = state === 'no_data' ? rule.stateSinceMs : nowMs;
    const alertedAlready = state === 'no_data' && rule.incidentId !== null;
    const due = rule.noData === 'alert' && !alertedAlready && nowMs - sinceMs >= forMs;
    return to('no_data', due ? [{ kind: 'open', cause: 'no_data' }] : []);
  }

  if (state === 'firing') {
    if (!isRecovered(rule, value, baseline)) return to('firing', open ? [FOLLOW] : []);
    return to('ok', open ? [resolve('recovered')] : []);
  }
  // Data is back: a no-data episode ends here, whatever the condition says next.
  const moves = state === 'no_data' && open ? [resolve('data arriving again')] : [];
  if (conditionHolds(rule, value, baseline) !== true) return to('ok', moves);
  const pendingSinceMs = state === 'pending' ? (rule.pendingSinceMs ?? nowMs) : nowMs;
  if (nowMs - pendingSinceMs >= forMs) return to('firing', [...moves, { kind: 'open', cause: 'condition' }]);
  return to('pending', moves, pendingSinceMs);
}
