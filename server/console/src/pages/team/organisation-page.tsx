import { useId, useState, type FormEvent } from 'react';
import { parseResponse } from 'hono/client';
import { organisationClient } from '../../api/typed';
import { can } from '../../api/types';
import { useApi } from '../../api/use-api';
import { useMe } from '../../auth/me-context';
import { formatTime } from '../../ui/format';
import { PageHeader } from '../../ui/layout';
import { Badge, LoadState } from '../../ui/status';
import { ActionError, useAction } from '../../ui/use-action';
import { SsoPolicyForm, SsoPolicyView } from './sso-policy-form';
import type { Organisation, SsoPolicy } from './types';
import './team.css';

/** The organisation's name: a form for an owner, text for everyone else. */
function NameSection({
  organisation,
  onRename,
}: {
  organisation: Organisation;
  onRename?: (name: string) => Promise<void>;
}) {
  const id = useId();
  const rename = useAction(async (name: string) => onRename?.(name));
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    void rename.run(String(new FormData(event.currentTarget).get('name') ?? ''));
  };
  return (
    <section aria-labelledby={`${id}-title`} className="panel">
      <h2 id={`${id}-title`}>Name</h2>
      {onRename ? (
        <form className="inline-form" onSubmit={submit}>
          <div className="field">
            <label htmlFor={`${id}-name`}>Organisation name</label>
            <input
              id={`${id}-name`}
              name="name"
              defaultValue={organisation.name}
              required
              maxLength={100}
              autoComplete="organization"
            />
          </div>
          <button type="submit" className="primary" disabled={rename.busy}>
            Rename
          </button>
        </form>
      ) : (
        <p>{organisation.name}</p>
      )}
      <ActionError error={rename.error} className="state state-error" />
      <p className="hint">Created {formatTime(organisation.created_at)}.</p>
    </section>
  );
}

/** Whether the server has single sign-on, and where the policy in force comes from. */
function SsoStatus({ sso }: { sso: Organisation['sso'] }) {
  return (
    <dl className="facts">
      <dt>Status</dt>
      <dd>
        {sso.enabled ? (
          <>
            <Badge tone="good">enabled</Badge> {sso.name} through <span className="mono">{sso.issuer}</span>
          </>
        ) : (
          <>
            <Badge tone="neutral">not configured</Badge> this server has no SVC_OIDC_ISSUER; the policy applies once it
            has
          </>
        )}
      </dd>
      <dt>Policy from</dt>
      <dd>
        {sso.policy_source === 'organisation'
          ? "the organisation's own (it replaces the server's SVC_OIDC_* policy settings)"
          : "the server's settings (SVC_OIDC_ALLOWED_DOMAINS, SVC_OIDC_GROUP_ROLES, SVC_OIDC_DEFAULT_ROLE)"}
      </dd>
    </dl>
  );
}

/**
 * `/organisation`: the organisation's name and its single sign-on (whether the server has it, the policy in force
 * and where it comes from). Owners rename it and edit the policy, or give it back to the server's settings; everyone
 * else reads it.
 */
export default function OrganisationPage() {
  const me = useMe();
  const manage = can(me, 'org.manage');
  const organisation = useApi((o) => organisationClient.index.$get(undefined, o));
  const [notice, setNotice] = useState<string>();
  /** One change; what it did is announced, and the page shows the organisation as it now is. */
  const patch = async (json: { name?: string; sso_policy?: SsoPolicy | null }, done: string) => {
    setNotice(undefined);
    await parseResponse(organisationClient.index.$patch({ json }));
    setNotice(done);
    organisation.reload();
  };
  const revert = useAction(() => patch({ sso_policy: null }, "The server's single sign-on policy applies again."));
  const org = organisation.data;
  return (
    <>
      <PageHeader title="Organisation" />
      {!manage && (
        <p className="panel read-note" role="note">
          The organisation and its single sign-on are managed by its owners.
        </p>
      )}
      <p role="status" className="notice">
        {notice}
      </p>
      <LoadState loading={organisation.loading && !org} error={organisation.error} />
      {org && (
        <>
          <NameSection
            organisation={org}
            onRename={manage ? (name) => patch({ name }, `Renamed to ${name}.`) : undefined}
          />
          <section aria-labelledby="sso-heading" className="panel">
            <h2 id="sso-heading">Single sign-on</h2>
            <SsoStatus sso={org.sso} />
            {manage ? (
              <SsoPolicyForm
                key={JSON.stringify(org.sso)}
                policy={org.sso.policy}
                onSave={(policy) => patch({ sso_policy: policy }, 'Single sign-on policy saved.')}
              >
                {org.sso.policy_source === 'organisation' && (
                  <button type="button" onClick={() => void revert.run()} disabled={revert.busy}>
                    Use the server's policy instead
                  </button>
                )}
              </SsoPolicyForm>
            ) : (
              <>
                <h3>Policy</h3>
                <SsoPolicyView policy={org.sso.policy} />
              </>
            )}
            <ActionError error={revert.error} className="state state-error" />
          </section>
        </>
      )}
    </>
  );
}
