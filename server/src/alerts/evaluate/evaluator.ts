import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock } from '../../clock';
import type { Database } from '../../db/schema';
import type { IncidentCommands } from '../../incidents/types';
import { baselineValue, conditionBound, evaluateRule } from '../query';
import type { AlertRule } from '../rule';
import { claimRule, dueRules, saveRuleState } from '../store';
import { decide, type Decision, type Reading } from './decide';
import { findRuleIncident, makeMoves, openIncidentOf, type MovesMade } from './lifecycle';
import { evaluationOptions, nextDueMs, type EvaluationOptions } from './options';

export interface RuleEvaluatorDeps {
  db: Kysely<Database>;
  clock: Clock;
  commands: IncidentCommands;
  /** Base URL of the server, for the console links of the evidence. */
  publicUrl: string;
  log: (line: string) => void;
  options?: Partial<EvaluationOptions>;
}

/** What one run did: rules evaluated, rules another process took first, and incident ids per move. */
export interface EvaluationReport extends MovesMade {
  evaluated: string[];
  /** Due rules another process claimed between this one reading and claiming them. */
  taken: string[];
  failed: string[];
}

export interface RuleEvaluator {
  readonly options: EvaluationOptions;
  /** Evaluates the rules due now (at most `rulesPerTick`), each claimed so that no other process evaluates it too. */
  runOnce(): Promise<EvaluationReport>;
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** The rule's value over the window ending now and, for a change condition, its baseline and the bound from it. */
async function readRule(db: Kysely<Database>, rule: AlertRule, nowMs: number): Promise<Reading> {
  // A disabled rule is only being put back to `ok`: nothing to measure.
  if (!rule.enabled) return { value: null, bound: null, baseline: null };
  const window = { fromMs: nowMs - rule.windowSeconds * 1000, toMs: nowMs };
  const value = await evaluateRule(db, rule, window, nowMs);
  const baseline = value === null ? null : await baselineValue(db, rule, window, nowMs);
  return { value, baseline, bound: conditionBound(rule.condition, baseline) };
}

/**
 * When the rule is next due: after its interval (options.ts), or sooner when a `for_seconds` wait ends before, so a
 * pending rule fires on time.
 */
function nextEvalMs(
  rule: AlertRule,
  decision: Decision,
  incidentId: string | null,
  nowMs: number,
  tickMs: number,
): number {
  const next = nextDueMs(rule.windowSeconds, nowMs, tickMs);
  const forMs = rule.forSeconds * 1000;
  if (decision.state === 'pending' && decision.pendingSinceMs !== null)
    return Math.max(nowMs + 1, Math.min(next, decision.pendingSinceMs + forMs));
  if (decision.state === 'no_data' && rule.noData === 'alert' && incidentId === null)
    return Math.max(nowMs + 1, Math.min(next, decision.stateSinceMs + forMs));
  return next;
}

/**
 * The alert rule evaluator (docs/alerts.md, "Evaluation"): run with incident detection on every server process, it
 * takes the due rules, claims each with a lease (one conditional UPDATE: of two processes exactly one gets it),
 * measures it, decides its state and moves its incident, then stores the state and gives the lease back — only while
 * it still holds it. Opening is idempotent per rule as well (one open incident per rule), so a process that lost its
 * lease mid-way never opens a second one.
 */
export function createRuleEvaluator(deps: RuleEvaluatorDeps): RuleEvaluator {
  const options = evaluationOptions(deps.options);
  const owner = `ar_${randomBytes(6).toString('hex')}`;
  const { db, clock, commands } = deps;
  const lifecycle = { commands, publicUrl: deps.publicUrl, options };

  async function evaluateOne(rule: AlertRule, report: EvaluationReport): Promise<void> {
    const nowMs = clock.now();
    const reading = await readRule(db, rule, nowMs);
    const incident = await findRuleIncident(commands, rule);
    const decision = decide(rule, reading, incident && openIncidentOf(incident), nowMs);
    const incidentId = await makeMoves(lifecycle, rule, reading, decision, incident, nowMs, report);
    await saveRuleState(db, rule.id, owner, {
      state: decision.state,
      stateSinceMs: decision.stateSinceMs,
      pendingSinceMs: decision.pendingSinceMs,
      lastValue: reading.value,
      evaluatedMs: nowMs,
      incidentId,
      nextEvalMs: nextEvalMs(rule, decision, incidentId, nowMs, options.tickMs),
    });
    report.evaluated.push(rule.id);
  }

  /** A rule whose evaluation failed keeps its state and is tried again after its interval, not at every tick. */
  async function postpone(rule: AlertRule, error: unknown, report: EvaluationReport): Promise<void> {
    deps.log(`alert rule ${rule.id} evaluation failed: ${messageOf(error)}`);
    report.failed.push(rule.id);
    const nowMs = clock.now();
    await saveRuleState(db, rule.id, owner, {
      state: rule.state,
      stateSinceMs: rule.stateSinceMs,
      pendingSinceMs: rule.pendingSinceMs,
      lastValue: rule.lastValue,
      evaluatedMs: nowMs,
      incidentId: rule.incidentId,
      nextEvalMs: nextDueMs(rule.windowSeconds, nowMs, options.tickMs),
    });
  }

  return {
    options,
    async runOnce() {
      const report: EvaluationReport = {
        evaluated: [],
        taken: [],
        failed: [],
        opened: [],
        escalated: [],
        resolved: [],
        updated: [],
      };
      const nowMs = clock.now();
      for (const rule of await dueRules(db, nowMs, options.rulesPerTick)) {
        if (!(await claimRule(db, rule.id, owner, nowMs, nowMs + options.leaseMs))) {
          report.taken.push(rule.id);
          continue;
        }
        await evaluateOne(rule, report).catch((error: unknown) => postpone(rule, error, report));
      }
      return report;
    },
  };
}
