import { invalid } from '../../../shared/domain-errors';
import { isObject, type JsonObject } from '../../../json/read';
import { parseScope, type ScopeKind } from './scope';

/**
 * An Azure cost connection: the Cost Management scope to query and the Microsoft Entra ID app (service principal) that
 * reads it.
 *
 * - `scope` (required): an ARM scope Cost Management queries — a subscription (`/subscriptions/<id>`), a resource group
 *   (`/subscriptions/<id>/resourceGroups/<name>`), a management group, or a billing account, billing profile, invoice
 *   section, department, enrollment account or customer (`/providers/Microsoft.Billing/billingAccounts/<id>/...`).
 *   Resource-level costs (resource ids, names, tags by resource) need a subscription or resource group scope: the
 *   Query API groups by resource only there.
 * - `tenant_id`, `client_id` (required, GUIDs; sealed): the app's directory and application ids.
 * - `client_secret` (required, secret): one of the app's client secrets.
 * The app needs the Cost Management Reader role on the scope (read-only).
 */
export interface AzureConfig {
  /** Normalized: leading slash, canonical segment names, no trailing slash. */
  scope: string;
  scope_kind: ScopeKind;
}

export interface AzureSecrets {
  tenant_id: string;
  client_id: string;
  client_secret: string;
}

const FIELDS = ['scope', 'tenant_id', 'client_id', 'client_secret'];
const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Parses a connection's `config`, naming the offending field as `config.<field>` in every error. */
export function parseAzureConfig(raw: unknown): { config: AzureConfig; secrets: AzureSecrets } {
  if (!isObject(raw)) throw invalid('config must be an object', 'invalid_request', { field: 'config' });
  const unknown = Object.keys(raw).filter((k) => !FIELDS.includes(k));
  if (unknown.length > 0) throw fieldError(unknown[0]!, `is not an Azure field (known: ${FIELDS.join(', ')})`);

  const scope = parseScope(required(raw, 'scope'));
  if (!scope) {
    throw fieldError(
      'scope',
      'must be an Azure Cost Management scope such as /subscriptions/<subscription-id>, ' +
        '/subscriptions/<id>/resourceGroups/<name>, /providers/Microsoft.Management/managementGroups/<id> or ' +
        '/providers/Microsoft.Billing/billingAccounts/<id>',
    );
  }
  const tenantId = required(raw, 'tenant_id');
  if (!GUID.test(tenantId)) throw fieldError('tenant_id', 'must be the directory (tenant) id, a GUID');
  const clientId = required(raw, 'client_id');
  if (!GUID.test(clientId)) throw fieldError('client_id', 'must be the application (client) id, a GUID');
  const clientSecret = required(raw, 'client_secret');
  if (clientSecret.length > 1024) throw fieldError('client_secret', 'must be at most 1024 characters');

  return {
    config: { scope: scope.path, scope_kind: scope.kind },
    secrets: { tenant_id: tenantId.toLowerCase(), client_id: clientId.toLowerCase(), client_secret: clientSecret },
  };
}

/** What the API shows of a connection: the scope, never which app reads it or with what. */
export function publicAzureConfig(config: AzureConfig): Record<string, unknown> {
  return { scope: config.scope };
}

function required(raw: JsonObject, field: string): string {
  const v = raw[field];
  if (v === undefined || v === null || v === '') throw fieldError(field, 'is required');
  if (typeof v !== 'string') throw fieldError(field, 'must be a string');
  return v;
}

function fieldError(field: string, rule: string) {
  return invalid(`config.${field} ${rule}`, 'invalid_request', { field: `config.${field}` });
}
