/** The Cost Management scopes (learn.microsoft.com/rest/api/cost-management/query/usage, `scope`). */
export type ScopeKind =
  | 'subscription'
  | 'resourceGroup'
  | 'managementGroup'
  | 'billingAccount'
  | 'department'
  | 'enrollmentAccount'
  | 'billingProfile'
  | 'invoiceSection'
  | 'customer';

export interface Scope {
  /** `/subscriptions/...` or `/providers/...` with ARM's canonical segment names and no trailing slash. */
  path: string;
  kind: ScopeKind;
}

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Resource group names: 1–90 letters, digits, underscores, hyphens, periods and parentheses, not ending in a period. */
const RESOURCE_GROUP = /^[\p{L}\p{N}_().-]{0,89}[\p{L}\p{N}_()-]$/u;
const MANAGEMENT_GROUP = /^[\w().-]{1,90}$/;
/** Billing ids come in several shapes: EA enrollment numbers, MCA `<guid>:<guid>_<date>`, profile ids `XXXX-XXXX-XXX-XXX`. */
const BILLING_ID = /^[\w.:()-]{1,256}$/;

/** Billing-account children, each a `/<segment>/<id>` pair, with the invoice section under a billing profile. */
const BILLING_CHILDREN: Record<string, { segment: string; kind: ScopeKind }> = {
  departments: { segment: 'departments', kind: 'department' },
  enrollmentaccounts: { segment: 'enrollmentAccounts', kind: 'enrollmentAccount' },
  billingprofiles: { segment: 'billingProfiles', kind: 'billingProfile' },
  customers: { segment: 'customers', kind: 'customer' },
};

/**
 * A scope as users copy it from the portal or the docs — with or without the leading slash, any case in the fixed
 * segments — in canonical form; null when it is not one of the Cost Management scopes.
 */
export function parseScope(input: string): Scope | null {
  const parts = input
    .trim()
    .split('/')
    .filter((p) => p !== '');
  const word = (i: number) => parts[i]?.toLowerCase();
  const id = (i: number, pattern: RegExp) => (parts[i] !== undefined && pattern.test(parts[i]!) ? parts[i]! : null);

  if (word(0) === 'subscriptions') {
    const subscription = id(1, GUID);
    if (!subscription) return null;
    if (parts.length === 2) return { path: `/subscriptions/${subscription.toLowerCase()}`, kind: 'subscription' };
    const group = id(3, RESOURCE_GROUP);
    if (parts.length !== 4 || word(2) !== 'resourcegroups' || !group) return null;
    return { path: `/subscriptions/${subscription.toLowerCase()}/resourceGroups/${group}`, kind: 'resourceGroup' };
  }
  if (word(0) !== 'providers') return null;
  if (word(1) === 'microsoft.management' && word(2) === 'managementgroups' && parts.length === 4) {
    const group = id(3, MANAGEMENT_GROUP);
    return group
      ? { path: `/providers/Microsoft.Management/managementGroups/${group}`, kind: 'managementGroup' }
      : null;
  }
  if (word(1) !== 'microsoft.billing' || word(2) !== 'billingaccounts') return null;
  const account = id(3, BILLING_ID);
  if (!account) return null;
  const base = `/providers/Microsoft.Billing/billingAccounts/${account}`;
  if (parts.length === 4) return { path: base, kind: 'billingAccount' };
  const child = BILLING_CHILDREN[word(4) ?? ''];
  const childId = id(5, BILLING_ID);
  if (!child || !childId) return null;
  if (parts.length === 6) return { path: `${base}/${child.segment}/${childId}`, kind: child.kind };
  const section = id(7, BILLING_ID);
  if (child.kind === 'billingProfile' && parts.length === 8 && word(6) === 'invoicesections' && section) {
    return { path: `${base}/billingProfiles/${childId}/invoiceSections/${section}`, kind: 'invoiceSection' };
  }
  return null;
}

/** Whether the Query API can group this scope's costs by resource (`ResourceId`): subscription scopes and below. */
export function groupsByResource(kind: ScopeKind): boolean {
  return kind === 'subscription' || kind === 'resourceGroup';
}
