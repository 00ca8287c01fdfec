import { useId, useState, type FormEvent, type ReactNode } from 'react';
import { ActionError, useAction } from '../../ui/use-action';
import { ROLES, type Role, type SsoPolicy } from './types';

type DefaultRole = SsoPolicy['default_role'];
const DEFAULT_ROLES: readonly DefaultRole[] = [...ROLES, 'none'];

/** How a default role reads: `none` says what it means. */
const defaultRoleText = (role: DefaultRole) => (role === 'none' ? 'none (only mapped groups get in)' : role);

/** One group → role row of the form; `key` keeps React's rows apart while names are typed. */
interface GroupRow {
  key: number;
  group: string;
  role: Role;
}

/** The policy as text: for whom may not change it. */
export function SsoPolicyView({ policy }: { policy: SsoPolicy }) {
  const groups = Object.entries(policy.group_roles);
  return (
    <dl className="facts">
      <dt>Allowed e-mail domains</dt>
      <dd>{policy.allowed_domains.length === 0 ? 'any' : policy.allowed_domains.join(', ')}</dd>
      <dt>Groups and their roles</dt>
      <dd>{groups.length === 0 ? 'none mapped' : groups.map(([group, role]) => `${group} → ${role}`).join(', ')}</dd>
      <dt>Default role</dt>
      <dd>{defaultRoleText(policy.default_role)}</dd>
    </dl>
  );
}

/** The group → role rows, each with its group name, role and a way to remove it. */
function GroupRows({
  rows,
  focusKey,
  onChange,
}: {
  rows: readonly GroupRow[];
  focusKey: number | null;
  onChange: (rows: GroupRow[]) => void;
}) {
  const edit = (key: number, change: Partial<GroupRow>) =>
    onChange(rows.map((row) => (row.key === key ? { ...row, ...change } : row)));
  if (rows.length === 0) return <p className="hint">No group is mapped: new members get the default role.</p>;
  return (
    <table className="data-table sso-groups">
      <caption className="visually-hidden">Groups and the roles they grant</caption>
      <thead>
        <tr>
          <th scope="col">Group (exactly as the provider sends it)</th>
          <th scope="col">Role</th>
          <th scope="col">Actions</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row, i) => (
          <tr key={row.key}>
            <td>
              <input
                aria-label={`Group ${i + 1}`}
                value={row.group}
                maxLength={256}
                required
                autoFocus={row.key === focusKey}
                onChange={(e) => edit(row.key, { group: e.currentTarget.value })}
              />
            </td>
            <td>
              <select
                aria-label={`Role of group ${i + 1}`}
                value={row.role}
                onChange={(e) => edit(row.key, { role: e.currentTarget.value as Role })}
              >
                {ROLES.map((role) => (
                  <option key={role} value={role}>
                    {role}
                  </option>
                ))}
              </select>
            </td>
            <td>
              <button
                type="button"
                aria-label={`Remove group ${i + 1}${row.group ? ` (${row.group})` : ''}`}
                onClick={() => onChange(rows.filter((other) => other.key !== row.key))}
              >
                Remove
              </button>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/**
 * Edits the single sign-on policy: allowed domains, group → role rows, default role. `onSave` sends it (the server
 * checks each field and says which one is wrong); `children` are further actions beside Save.
 */
export function SsoPolicyForm({
  policy,
  onSave,
  children,
}: {
  policy: SsoPolicy;
  onSave: (policy: SsoPolicy) => Promise<void>;
  children?: ReactNode;
}) {
  const id = useId();
  const [domains, setDomains] = useState(policy.allowed_domains.join(', '));
  const [rows, setRows] = useState<GroupRow[]>(() =>
    Object.entries(policy.group_roles).map(([group, role], key) => ({ key, group, role })),
  );
  const [defaultRole, setDefaultRole] = useState<DefaultRole>(policy.default_role);
  const [added, setAdded] = useState<number | null>(null);
  const save = useAction(onSave);
  const addRow = () => {
    const key = Math.max(-1, ...rows.map((row) => row.key)) + 1;
    setRows([...rows, { key, group: '', role: 'member' }]);
    setAdded(key);
  };
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    void save.run({
      allowed_domains: domains.split(/[\s,]+/).filter((domain) => domain !== ''),
      group_roles: Object.fromEntries(rows.map((row) => [row.group.trim(), row.role])),
      default_role: defaultRole,
    });
  };
  return (
    <form onSubmit={submit} aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>Policy</h3>
      <div className="field">
        <label htmlFor={`${id}-domains`}>Allowed e-mail domains (comma-separated; empty allows any)</label>
        <input
          id={`${id}-domains`}
          value={domains}
          placeholder="example.com, example.org"
          onChange={(e) => setDomains(e.currentTarget.value)}
        />
      </div>
      <h4>Groups and their roles</h4>
      <GroupRows rows={rows} focusKey={added} onChange={setRows} />
      <div className="form-actions">
        <button type="button" onClick={addRow} disabled={rows.length >= 100}>
          Add group
        </button>
      </div>
      <div className="field sso-default-role">
        <label htmlFor={`${id}-default`}>Default role (new members none of whose groups is mapped)</label>
        <select
          id={`${id}-default`}
          value={defaultRole}
          onChange={(e) => setDefaultRole(e.currentTarget.value as DefaultRole)}
        >
          {DEFAULT_ROLES.map((role) => (
            <option key={role} value={role}>
              {defaultRoleText(role)}
            </option>
          ))}
        </select>
      </div>
      <div className="form-actions">
        <button type="submit" className="primary" disabled={save.busy}>
          Save policy
        </button>
        {children}
      </div>
      <ActionError error={save.error} className="state state-error" />
    </form>
  );
}
