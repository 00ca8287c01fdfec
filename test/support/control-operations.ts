import { PERMISSIONS, type Permission } from '../../server/src/auth/roles';
import { PERMISSION_FIELD } from '../../server/src/http/permissions';

/** One control-plane operation of the served OpenAPI document, as the permission suites walk them. */
export interface ControlOperation {
  method: string;
  /** The documented path, parameters in braces: `/control-plane/issues/{id}`. */
  path: string;
  /** `x-svc-permission`; undefined when the operation declares none (or one that is not a permission). */
  permission: Permission | undefined;
  /** The documented example of its JSON body; undefined when it takes none or documents none. */
  example: unknown;
}

interface DocumentedOperation {
  [PERMISSION_FIELD]?: unknown;
  requestBody?: { content?: Record<string, { example?: unknown }> };
}

const METHODS = ['get', 'put', 'post', 'patch', 'delete'];

const isPermission = (value: unknown): value is Permission => PERMISSIONS.includes(value as Permission);

/** Every operation under /control-plane of the document `url` serves. */
export async function controlOperations(url: string): Promise<ControlOperation[]> {
  const res = await fetch(`${url}/openapi.json`);
  const doc = (await res.json()) as { paths: Record<string, Record<string, DocumentedOperation>> };
  return Object.entries(doc.paths)
    .filter(([path]) => path.startsWith('/control-plane/'))
    .flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([method]) => METHODS.includes(method))
        .map(([method, op]) => {
          const declared = op[PERMISSION_FIELD];
          return {
            method: method.toUpperCase(),
            path,
            permission: isPermission(declared) ? declared : undefined,
            example: op.requestBody?.content?.['application/json']?.example,
          };
        }),
    );
}

export const operationName = (op: Pick<ControlOperation, 'method' | 'path'>) => `${op.method} ${op.path}`;
