/** What an audit entry's target is: the kind of object and its id. */
export interface AuditTarget {
  type: string;
  id: string;
}

/** Path segments that name a collection of objects, and the target type of one of them. */
const COLLECTIONS: Readonly<Record<string, string>> = {
  projects: 'project',
  keys: 'key',
  incidents: 'incident',
  channels: 'channel',
  rules: 'rule',
  integrations: 'integration',
  apps: 'app',
  issues: 'issue',
  providers: 'cost_provider',
  mappings: 'cost_mapping',
  sourcemaps: 'sourcemap',
  'test-runs': 'test_run',
  members: 'member',
  invitations: 'invitation',
  sessions: 'session',
  'alert-rules': 'alert_rule',
};

/** Objects an app has one of, named by the app's path parameter (`/apps/{app}/repository`). */
const SINGLETONS: Readonly<Record<string, string>> = { repository: 'repository' };

/** Path parameters that name their object after a segment that is not its collection (`/notifications/{channelId}/test`). */
const PARAMETERS: Readonly<Record<string, string>> = { channelId: 'channel' };

/**
 * The object an operation acts on, read from its path template (`PATCH /control-plane/issues/{id}`) and the request's
 * path parameters: the last `collection/{param}` pair (`channels/{id}` → channel), a singleton after it
 * (`apps/{app}/repository` → the app's repository), an integration named by its segment (`integrations/chat-app`);
 * a creation (`POST` ending at a collection) targets the new object, whose id `created` gives (the answer's `id`).
 * Null when the operation acts on no one object (a bulk change, the rules' order).
 */
export function targetOf(
  operation: string,
  params: Readonly<Record<string, string>>,
  created: string | undefined,
): AuditTarget | null {
  const [method, template = ''] = operation.split(' ');
  const segments = template.split('/').filter((s) => s !== '' && s !== 'control-plane');
  let target: { type: string; id: string | undefined } | null = null;
  for (const [i, segment] of segments.entries()) {
    const next = segments[i + 1];
    const param = paramName(next);
    const previous = paramName(segments[i - 1]);
    const type = COLLECTIONS[segment] ?? PARAMETERS[param ?? ''];
    if (SINGLETONS[segment] && previous) target = { type: SINGLETONS[segment], id: params[previous] };
    else if (param && type) target = { type, id: params[param] };
    else if (segment === 'integrations' && next) target = { type: 'integration', id: next };
    else if (COLLECTIONS[segment] && next === undefined && method === 'POST')
      target = { type: COLLECTIONS[segment], id: created };
  }
  return target?.id === undefined ? null : { type: target.type, id: target.id };
}

/** `id` for a template's `{id}` segment; undefined for a literal one. */
const paramName = (segment: string | undefined): string | undefined => segment?.match(/^\{(.+)\}$/)?.[1];
