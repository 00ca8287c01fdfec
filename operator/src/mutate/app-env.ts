import type { V1Container, V1EnvVar } from '@kubernetes/client-node';
import { effectiveEnvIndex } from '../detect/index.js';
import { POD_NAME_ENV } from '../markers.js';
import type { AgentLanguage } from '../resource/types.js';
import { agentVariable } from './agent-options.js';
import type { PatchBuilder, Segments } from './patch.js';
import {
  attributeKeys,
  connectionEnv,
  formatAttributes,
  otlpEnv,
  OTLP_ENDPOINT_ENV,
  podNameEnv,
  RESOURCE_ATTRIBUTES_ENV,
  resourceAttributes,
  SERVICE_NAME_ENV,
  type TelemetryContext,
} from './telemetry-env.js';

/** Changes to the application container's `env`, planned against its current list. */
interface EnvPlan {
  /** New values for existing entries, by their index in the current list. */
  updates: { index: number; value: string }[];
  /** An entry that must precede an existing one (our $(SVC_POD_NAME) inside the app's OTEL_RESOURCE_ATTRIBUTES). */
  insert?: { before: number; entry: V1EnvVar };
  appends: V1EnvVar[];
  warnings: string[];
}

/**
 * Adds what the SDK agent needs to the application container's env without replacing anything the app set: a
 * variable the app defines (literal or valueFrom) is kept, except the agent variable (NODE_OPTIONS,
 * JAVA_TOOL_OPTIONS, PYTHONPATH) and OTEL_RESOURCE_ATTRIBUTES, which are extended when literal and reported when
 * valueFrom (their value is unknown at admission). Kubernetes uses the last entry of a name, so that is the one read.
 */
export function mergeAppEnv(
  builder: PatchBuilder,
  path: Segments,
  container: V1Container,
  ctx: TelemetryContext,
  lang: AgentLanguage,
): string[] {
  const plan = planAppEnv(container, ctx, lang);
  const env = container.env ?? [];
  for (const { index, value } of plan.updates) {
    if (env[index]?.value === undefined) builder.setKey([...path, 'env', index], 'value', value);
    else builder.replace([...path, 'env', index, 'value'], value);
  }
  // After the updates, which address entries by their original index.
  if (plan.insert) builder.insert([...path, 'env'], plan.insert.before, plan.insert.entry);
  for (const entry of plan.appends) builder.append([...path, 'env'], entry);
  return plan.warnings;
}

function planAppEnv(container: V1Container, ctx: TelemetryContext, lang: AgentLanguage): EnvPlan {
  const env = container.env ?? [];
  const plan: EnvPlan = { updates: [], appends: [], warnings: [] };
  const effective = (name: string): number => effectiveEnvIndex(env, name);
  const addIfAbsent = (entry: V1EnvVar): void => {
    if (effective(entry.name) < 0) plan.appends.push(entry);
  };

  connectionEnv(ctx).forEach(addIfAbsent);
  addIfAbsent({ name: SERVICE_NAME_ENV, value: ctx.workload.name });
  planResourceAttributes(plan, env, effective, ctx);
  if (lang !== 'nodejs') {
    // The Node agent reads SVC_INGEST_URL itself; the Java and Python agents are configured the standard way.
    if (effective(OTLP_ENDPOINT_ENV) >= 0) {
      plan.warnings.push(
        `${OTLP_ENDPOINT_ENV} is set by the app and kept: the agent exports there, not to ${ctx.ingestUrl}`,
      );
    }
    otlpEnv().forEach(addIfAbsent);
  }
  planAgentVariable(plan, env, effective, lang);

  const added = [...plan.appends, ...(plan.insert ? [plan.insert.entry] : [])].map((e) => e.name);
  if ((container.envFrom?.length ?? 0) > 0 && added.length > 0) {
    plan.warnings.push(
      `container has envFrom: the variables svc-zero sets in env (${added.join(', ')}) take precedence over the same names from its ConfigMaps or Secrets`,
    );
  }
  return plan;
}

function planResourceAttributes(
  plan: EnvPlan,
  env: readonly V1EnvVar[],
  effective: (name: string) => number,
  ctx: TelemetryContext,
): void {
  const ours = resourceAttributes(ctx);
  const index = effective(RESOURCE_ATTRIBUTES_ENV);
  const current = env[index];
  if (!current) {
    if (effective(POD_NAME_ENV) < 0) plan.appends.push(podNameEnv());
    plan.appends.push({ name: RESOURCE_ATTRIBUTES_ENV, value: formatAttributes(ours) });
    return;
  }
  if (current.valueFrom) {
    plan.warnings.push(
      `${RESOURCE_ATTRIBUTES_ENV} comes from valueFrom and was left alone: telemetry lacks the k8s.* and deployment.environment.name attributes`,
    );
    return;
  }
  const existing = current.value ?? '';
  const present = attributeKeys(existing);
  const missing = ours.filter(([key]) => !present.has(key));
  if (missing.length === 0) return;
  if (missing.some(([key]) => key === 'k8s.pod.name') && effective(POD_NAME_ENV) < 0) {
    // $(SVC_POD_NAME) is only expanded when defined by an earlier entry.
    plan.insert = { before: index, entry: podNameEnv() };
  }
  const separator = existing === '' || existing.endsWith(',') ? '' : ',';
  plan.updates.push({ index, value: `${existing}${separator}${formatAttributes(missing)}` });
}

function planAgentVariable(
  plan: EnvPlan,
  env: readonly V1EnvVar[],
  effective: (name: string) => number,
  lang: AgentLanguage,
): void {
  const variable = agentVariable(lang);
  const index = effective(variable.name);
  const current = env[index];
  if (!current) {
    const value = variable.extend(undefined);
    if (value !== undefined) plan.appends.push({ name: variable.name, value });
    return;
  }
  if (current.valueFrom) {
    const wanted = variable.extend('');
    plan.warnings.push(
      `${variable.name} comes from valueFrom, so svc-zero cannot add to it and the agent is not loaded: add "${wanted}" to that value, or set annotation svc.io/exclude=true`,
    );
    return;
  }
  const existing = current.value ?? '';
  plan.warnings.push(...variable.notes(existing));
  const value = variable.extend(existing);
  if (value !== undefined) plan.updates.push({ index, value });
}
