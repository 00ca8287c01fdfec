/**
 * One admission decision: decode the review, look up the namespace and its SvcInstrumentation (under a deadline),
 * run the mutation, answer. Every path answers `allowed` — with a patch only when the mutation produced one — and
 * logs exactly one line, so `kubectl logs` tells for each pod what happened and why.
 */
import type { AdmissionLookup } from '../cluster/lookup.js';
import type { Logger, LogLevel } from '../log.js';
import { mutatePod } from '../mutate/index.js';
import type { OperatorSettings } from '../resource/types.js';
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

interface Decision {
  review: AdmissionReviewResponse;
  level: LogLevel;
  msg: string;
  fields: Record<string, unknown>;
}

async function decide(body: string, context: AdmissionContext, skipped: Skipped | undefined): Promise<Decision> {
  if (skipped !== undefined) {
    const uid = skipped.uid ?? '';
    return {
      review: allowResponse(uid),
      level: 'warn',
      msg: 'admission request not understood; pod allowed unchanged',
      fields: { uid, reason: skipped.reason },
    };
  }
  const decoded = decodeReview(body);
  if (!decoded.ok) {
    return {
      review: allowResponse(decoded.uid),
      level: 'warn',
      msg: 'admission request not understood; pod allowed unchanged',
      fields: { uid: decoded.uid, reason: decoded.reason },
    };
  }
  const { uid, namespace, pod, dryRun } = decoded.request;
  // A dry run (kubectl --dry-run=server) is mutated like any pod (sideEffects None); the log says it was one.
  const base = { uid, namespace, pod: podLabel(pod), ...(dryRun ? { dryRun } : {}) };
  const deadlineMs = context.deadlineMs ?? DEFAULT_LOOKUP_DEADLINE_MS;

  let namespaceObject, instrumentation;
  try {
    [namespaceObject, instrumentation] = await withDeadline(deadlineMs, (signal) =>
      Promise.all([context.lookup.namespace(namespace, signal), context.lookup.instrumentation(namespace, signal)]),
    );
  } catch (error) {
    const timedOut = error instanceof DeadlineExceeded;
    return {
      review: allowResponse(uid),
      level: timedOut ? 'warn' : 'error',
      msg: timedOut
        ? 'namespace lookup missed its deadline; pod allowed unchanged'
        : 'namespace lookup failed; pod allowed unchanged',
      fields: {
        ...base,
        injected: false,
        reason: timedOut ? `lookup deadline ${deadlineMs} ms exceeded` : message(error),
      },
    };
  }
  if (namespaceObject === undefined) {
    return {
      review: allowResponse(uid),
      level: 'warn',
      msg: 'pod not instrumented',
      fields: { ...base, injected: false, reason: `namespace ${namespace} not found` },
    };
  }

  let result;
  try {
    result = mutatePod({ pod, namespace: namespaceObject, instrumentation, settings: context.settings });
  } catch (error) {
    return {
      review: allowResponse(uid),
      level: 'error',
      msg: 'mutation failed; pod allowed unchanged',
      fields: { ...base, injected: false, reason: message(error) },
    };
  }
  const { decision, patch } = result;
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
    review: allowResponse(uid, patch, warnings),
    level: 'info',
    msg: decision.injected ? 'pod instrumented' : 'pod not instrumented',
    fields,
  };
}
