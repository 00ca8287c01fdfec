/**
 * The SvcInstrumentation CRD's own openAPIV3Schema, applied the way kube-apiserver applies it to a custom resource.
 * The fake API server stores custom resources without looking at them, so tests check what the operator writes here.
 * - `validate`: ajv evaluates the keywords this schema uses (types, required, enum, pattern, bounds) as the API server
 *   would; it ignores the x-kubernetes-* markers, which are structural hints.
 * - `pruned`: the fields a structural schema does not declare. The API server drops them silently on write, so a
 *   status field missing from the schema would simply never be stored.
 */
import Ajv from 'ajv';
import { customResourceDefinition, type JsonSchema } from '../../../operator/src/manifests/crd.js';

export const crdSchema: JsonSchema = customResourceDefinition().spec.versions[0]!.schema.openAPIV3Schema;

export const validateCustomResource = new Ajv({
  allErrors: true,
  strict: false,
  formats: { int64: { type: 'number', validate: Number.isInteger } },
}).compile(crdSchema);

/** Paths (`.status.counts.extra`) of the fields in `value` that `schema` does not declare. */
export function pruned(value: unknown, schema: JsonSchema = crdSchema, path = ''): string[] {
  if (Array.isArray(value))
    return schema.items ? value.flatMap((item, i) => pruned(item, schema.items, `${path}[${i}]`)) : [];
  if (value === null || typeof value !== 'object') return [];
  const entries = Object.entries(value);
  // `metadata` is declared as a bare object: the API server validates it itself and prunes nothing in it.
  if (path === '.metadata') return [];
  if (schema.additionalProperties)
    return entries.flatMap(([key, child]) => pruned(child, schema.additionalProperties, `${path}.${key}`));
  return entries.flatMap(([key, child]) => {
    const declared = schema.properties?.[key];
    return declared ? pruned(child, declared, `${path}.${key}`) : [`${path}.${key}`];
  });
}
