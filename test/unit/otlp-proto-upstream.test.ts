import { join } from 'node:path';
import protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import { getOtlpRoot, OTLP_PROTO_VERSION } from '../../server/src/otlp/protobuf/schema';

/**
 * The server's OTLP schema (server/src/otlp/protobuf/schema.ts, written by hand as .proto text) checked against the
 * upstream opentelemetry-proto definitions of the version it names: test/fixtures/opentelemetry-proto/v<version> holds
 * upstream's .proto files of that tag as they are (Apache-2.0, its LICENSE beside them). Upgrading the schema means
 * adding that tag's files there and moving OTLP_PROTO_VERSION.
 */
const UPSTREAM = join(__dirname, '../fixtures/opentelemetry-proto', `v${OTLP_PROTO_VERSION}`);
const FILES = [
  'common/v1/common.proto',
  'resource/v1/resource.proto',
  'trace/v1/trace.proto',
  'logs/v1/logs.proto',
  'metrics/v1/metrics.proto',
  'collector/trace/v1/trace_service.proto',
  'collector/logs/v1/logs_service.proto',
  'collector/metrics/v1/metrics_service.proto',
].map((file) => `opentelemetry/proto/${file}`);

/**
 * Upstream fields the schema leaves out on purpose, by `Message.field` (a sender using one has it skipped like any
 * unknown field): none at this version, whose deprecated fields are reserved. A field a later version adds to a message
 * the schema has shows up here.
 */
const LEFT_OUT: string[] = [];

type Definition = protobuf.Type | protobuf.Enum;

function upstreamRoot(): protobuf.Root {
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => join(UPSTREAM, target);
  root.loadSync(FILES, { keepCase: true });
  root.resolveAll();
  return root;
}

/** Every message and enum under `namespace`, by its simple name: the schema keeps them in one flat package. */
function definitionsByName(namespace: protobuf.NamespaceBase, into = new Map<string, Definition[]>()) {
  for (const nested of namespace.nestedArray) {
    if (nested instanceof protobuf.Type || nested instanceof protobuf.Enum)
      into.set(nested.name, [...(into.get(nested.name) ?? []), nested]);
    if (nested instanceof protobuf.Namespace) definitionsByName(nested, into);
  }
  return into;
}

/** What decoding depends on: the number, the type (a message or enum by its name), repeated-ness, the oneof. */
function fieldShape(field: protobuf.Field) {
  return {
    id: field.id,
    type: field.resolvedType?.name ?? field.type,
    repeated: field.repeated,
    oneof: field.partOf?.name ?? null,
  };
}

describe(`the OTLP schema against opentelemetry-proto v${OTLP_PROTO_VERSION}`, () => {
  const upstream = definitionsByName(upstreamRoot());
  const ours = definitionsByName(getOtlpRoot());

  it('has upstream names that are unique across its packages, so one flat package can hold them', () => {
    expect([...upstream].filter(([, found]) => found.length > 1).map(([name]) => name)).toEqual([]);
  });

  it('gives every message field the number, type, repeated-ness and oneof upstream gives it', () => {
    const differences: string[] = [];
    for (const [name, [definition]] of ours) {
      const theirs = upstream.get(name)?.[0];
      if (!(definition instanceof protobuf.Type)) continue;
      if (!(theirs instanceof protobuf.Type)) {
        differences.push(`${name}: no such message upstream`);
        continue;
      }
      for (const field of definition.fieldsArray) {
        const upstreamField = theirs.fields[field.name];
        const shape = JSON.stringify(fieldShape(field));
        const upstreamShape = upstreamField ? JSON.stringify(fieldShape(upstreamField)) : 'missing';
        if (shape !== upstreamShape)
          differences.push(`${name}.${field.name}: ours ${shape}, upstream ${upstreamShape}`);
      }
    }
    expect(differences).toEqual([]);
  });

  it('gives every enum value the number upstream gives it', () => {
    const differences: string[] = [];
    for (const [name, [definition]] of ours) {
      if (!(definition instanceof protobuf.Enum)) continue;
      const theirs = upstream.get(name)?.[0];
      const values = theirs instanceof protobuf.Enum ? theirs.values : {};
      for (const [value, number] of Object.entries(definition.values))
        if (values[value] !== number) differences.push(`${name}.${value}: ours ${number}, upstream ${values[value]}`);
    }
    expect(differences).toEqual([]);
  });

  it('leaves out only the upstream fields it means to, of the messages it has', () => {
    const leftOut: string[] = [];
    for (const [name, [definition]] of ours) {
      const theirs = upstream.get(name)?.[0];
      if (!(definition instanceof protobuf.Type) || !(theirs instanceof protobuf.Type)) continue;
      for (const field of theirs.fieldsArray) if (!definition.fields[field.name]) leftOut.push(`${name}.${field.name}`);
    }
    expect(leftOut).toEqual(LEFT_OUT);
  });
});
