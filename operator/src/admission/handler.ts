/**
 * One admission decision: decode the review, look up the namespace and its SvcInstrumentation (under a deadline),
 * run the mutation, answer. Every path answers `allowed` — with a patch only when the mutation produced one — and
 * logs exactly one line, so `kubectl logs` tells for each pod what happened and why.
 */
import type { V1Namespace } from '@kubernetes/client-node';
import type { AdmissionLookup } from '../cluster/lookup.js';
import type { Logger, LogLevel } from '../log.js';
import { mutatePod, type MutationResult } from '../mutate/index.js';
import type { OperatorSettings, SvcInstrumentation } from '../resource/types.js';
import { DeadlineExceeded, withDeadline } from './deadline.js';
import { allowResponse, decodeReview, podLabel, type AdmissionReviewResponse } from './review.js';

export const DEFAULT_LOOKUP_DEADLINE_MS = 2000;

export interface AdmissionContext {
  lookup: AdmissionLookup;
  settings: OperatorSettings;
  /** One line per decision (pass `logger.log`). */
  log: Logger['log'];
  /** How long the namespace and SvcInstrumentation lookups may take; default 2 s (the webhook's timeout is 10 s). */
  deadlineMs?: number;
}

/** Why a request was not even decoded, and its uid when it could be read anyway (from a body over the size limit). */
export interface Skipped {
  reason: string;
  uid?: string;
}

const message = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** Answers one AdmissionReview body; never throws. */
export async function admit(
  body: string,
  context: AdmissionContext,
  skipped?: Skipped,
): Promise<AdmissionReviewResponse> {
  const started = performance.now();
  let decision: Decision;
  try {
    decision = await decide(body, context, skipped);
  } catch (error) {
    // Only a bug gets here (decide handles every expected failure); the pod is still not blocked.
    const decoded = decodeReview(body);
    const uid = decoded.ok ? decoded.request.uid : decoded.uid;
    decision = {
      review: allowResponse(uid),
      level: 'error',
      msg: 'admission failed; pod allowed unchanged',
      fields: { uid, injected: false, reason: message(error) },
    };
  }
  context.log(decision.level, decision.msg, {
    ...decision.fields,
    durationMs: Math.round((performance.now() - started) * 100) / 100,
  });
  return decision.review;
}

export interface Decision {
  review: AdmissionReviewResponse;
  level: LogLevel;
  msg: string;
  fields: Record<string, unknown>;
}

async function decide(body: string, context: AdmissionContext, skipped: Skipped | undefined): Promise<Decision> {
  if (skipped !== undefined) return notUnderstood(skipped.uid ?? '', skipped.reason);
  const decoded = decodeReview(body);
  if (!decoded.ok) return notUnderstood(decoded.uid, decoded.reason);
  const { uid, namespace, pod, dryRun } = decoded.request;
  // A dry run (kubectl --dry-run=server) is mutated like any pod (sideEffects None); the log says it was one.
  const base: DecisionBase = { uid, namespace, pod: podLabel(pod), ...(dryRun ? { dryRun } : {}) };

  const found = await lookUpNamespace(context, base);
  if ('review' in found) return found;
  if (found.namespace === undefined) {
    return unchanged(base, 'warn', 'pod not instrumented', `namespace ${namespace} not found`);
  }
  let result: MutationResult;
  try {
    result = mutatePod({
      pod,
      namespace: found.namespace,
      instrumentation: found.instrumentation,
      settings: context.settings,
    });
  } catch (error) {
    return unchanged(base, 'error', 'mutation failed; pod allowed unchanged', message(error));
  }
  return mutationDecision(base, result);
}

/** What every log line of a decoded request carries. */
export interface DecisionBase {
  uid: string;
  namespace: string;
  pod: string;
  dryRun?: true;
}

/** A request that could not be decoded: allowed, and the log says why. */
function notUnderstood(uid: string, reason: string): Decision {
  return {
    review: allowResponse(uid),
    level: 'warn',
    msg: 'admission request not understood; pod allowed unchanged',
    fields: { uid, reason },
  };
}

/** A decoded request allowed without a patch before the mutation decided anything. */
function unchanged(base: DecisionBase, level: LogLevel, msg: string, reason: string): Decision {
  return { review: allowResponse(base.uid), level, msg, fields: { ...base, injected: false, reason } };
}

interface Found {
  namespace: V1Namespace | undefined;
  instrumentation: SvcInstrumentation | undefined;
}

/** The namespace and its SvcInstrumentation within the lookup deadline, or the decision when they could not be had. */
async function lookUpNamespace(context: AdmissionContext, base: DecisionBase): Promise<Found | Decision> {
  const deadlineMs = context.deadlineMs ?? DEFAULT_LOOKUP_DEADLINE_MS;
  try {
    const [namespace, instrumentation] = await withDeadline(deadlineMs, (signal) =>
      Promise.all([
        context.lookup.namespace(base.namespace, signal),
        context.lookup.instrumentation(base.namespace, signal),
      ]),
    );
    return { namespace, instrumentation };
  } catch (error) {
    if (error instanceof DeadlineExceeded) {
      const msg = 'namespace lookup missed its deadline; pod allowed unchanged';
      return unchanged(base, 'warn', msg, `lookup deadline ${deadlineMs} ms exceeded`);
    }
    return unchanged(base, 'error', 'namespace lookup failed; pod allowed unchanged', message(error));
  }
}

/** The answer and log line of a mutation that ran: the patch, if any, and everything the mutation decided. */
export function mutationDecision(base: DecisionBase, { decision, patch }: MutationResult): Decision {
  const fields = {
    ...base,
    workload: decision.workload,
    injected: decision.injected,
    reason: decision.reason,
    container: decision.container,
    lang: decision.lang,
    framework: decision.framework,
    strategy: decision.strategy,
    confidence: decision.confidence,
    fallback: decision.fallback,
    warnings: decision.warnings.length > 0 ? decision.warnings : undefined,
    patchOperations: patch.length,
  };
  // Warnings reach whoever created the pod (kubectl prints them), e.g. a NODE_OPTIONS from a Secret left as it was.
  const warnings = decision.injected ? decision.warnings.map((warning) => `svc-zero: ${warning}`) : undefined;
  return {
    review: allowResponse(base.uid, patch, warnings),
    level: 'info',
    msg: decision.injected ? 'pod instrumented' : 'pod not instrumented',
    fields,
  };
}
