import { invalid } from '../shared/domain-errors';
import { readArray, readObject, type JsonObject } from '../json/read';
import { readResource, readScope, type ResourceInfo } from './values';

/** Field names of one OTLP signal's envelope: resource level, scope level, records. */
export interface Envelope {
  message: string;
  resources: string;
  scopes: string;
  records: string;
}

export interface RecordContext {
  /** JSON path of the record, for error messages. */
  path: string;
  resource: ResourceInfo;
  /** The resource and scope as stored (JSON text), computed once per resource and scope. */
  resourceJson: string;
  scopeJson: string;
}

/**
 * Walks resource → scope → record of an OTLP/JSON export request, validating the envelope, and calls `visit` for
 * every record with its resource and scope. The request's top-level list is required: `{}` is refused.
 */
export function forEachRecord(
  body: unknown,
  envelope: Envelope,
  visit: (record: JsonObject, ctx: RecordContext) => void,
): void {
  const root = readObject(body, 'body');
  if (root[envelope.resources] === undefined || root[envelope.resources] === null) {
    throw invalid(
      `${envelope.resources} is required: an OTLP ${envelope.message} has at least one element there`,
      'invalid_request',
      {
        field: envelope.resources,
      },
    );
  }
  readArray(root[envelope.resources], envelope.resources).forEach((rRaw, i) => {
    const rPath = `${envelope.resources}[${i}]`;
    const r = readObject(rRaw, rPath);
    const resource = readResource(r, rPath);
    const resourceJson = JSON.stringify({ attributes: resource.attributes });
    readArray(r[envelope.scopes], `${rPath}.${envelope.scopes}`).forEach((sRaw, j) => {
      const sPath = `${rPath}.${envelope.scopes}[${j}]`;
      const s = readObject(sRaw, sPath);
      const scopeJson = JSON.stringify(readScope(s, sPath));
      readArray(s[envelope.records], `${sPath}.${envelope.records}`).forEach((recRaw, k) => {
        const path = `${sPath}.${envelope.records}[${k}]`;
        visit(readObject(recRaw, path), { path, resource, resourceJson, scopeJson });
      });
    });
  });
}
