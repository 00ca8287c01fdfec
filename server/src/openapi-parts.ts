/** Small builders the OpenAPI path modules share (openapi-incidents.ts, openapi-cost.ts). */
export type Schema = Record<string, unknown>;

export const errorRefs = (...codes: number[]) => Object.fromEntries(codes.map((code) => [String(code), { $ref: `#/components/responses/Error${code}` }]));
export const json = (schema: Schema) => ({ 'application/json': { schema } });
export const obj = (properties: Record<string, Schema>, required: string[] = []): Schema => ({ type: 'object', properties, ...(required.length ? { required } : {}) });
export const str: Schema = { type: 'string' };
export const strOrNull: Schema = { type: ['string', 'null'] };
export const num: Schema = { type: 'number' };
export const time: Schema = { type: 'string', format: 'date-time' };
export const timeOrNull: Schema = { type: ['string', 'null'], format: 'date-time' };
export const strings: Schema = { type: 'array', items: str };
export const param = (name: string, where: 'path' | 'query', description: string, schema: Schema = str) => ({ name, in: where, required: where === 'path', schema, description });
/** The query of a signed, keyless link (server/src/incidents/links.ts). */
export const signedQuery = [param('p', 'query', 'Project'), param('exp', 'query', 'Expiry, epoch ms'), param('sig', 'query', 'HMAC signature')];

/** A control-plane operation (control key), with the error answers every one can give. */
export const control = (summary: string, responses: Record<string, unknown>, extra: Schema = {}) => ({
  tags: ['control'],
  summary,
  security: [{ controlKey: [] }],
  ...extra,
  responses: { ...responses, ...errorRefs(400, 401, 403) },
});
export const ok = (description: string, schema: Schema) => ({ '200': { description, content: json(schema) } });
export const created = (schema: Schema) => ({ '201': { description: 'Created', content: json(schema) } });
export const body = (schema: Schema) => ({ requestBody: { required: true, content: json(schema) } });
export const idParam = (what: string) => ({ parameters: [param('id', 'path', what)] });
export const noContent = { '204': { description: 'Deleted' }, ...errorRefs(404) };
