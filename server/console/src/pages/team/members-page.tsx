import { useState } from 'react';
import { invitationsClient, membersClient } from '../../api/typed';
import { can } from '../../api/types';
import { useApi } from '../../api/use-api';
import { useMe } from '../../auth/me-context';
import { PageHeader } from '../../ui/layout';
import { LoadState } from '../../ui/status';
import { InvitationsSection } from './invitations-section';
import { InviteForm } from './invite-form';
import { MembersTable } from './members-table';
import './team.css';

/**
 * `/members`: the organisation's members with their roles and project limits, inviting (the one-time link shown),
 * pending invitations, removing a member and signing them out everywhere. Shown to whom may manage members.
 */
export default function MembersPage() {
  const me = useMe();
  const manage = can(me, 'members.manage');
  const members = useApi((o) => membersClient.index.$get(undefined, o));
  const invitations = useApi(manage ? (o) => invitationsClient.index.$get(undefined, o) : null);
  const [notice, setNotice] = useState<string>();
  const changed = (text: string) => {
    setNotice(text);
    members.reload();
    invitations.reload();
  };
  const rows = members.data?.data ?? [];
  return (
    <>
      <PageHeader title="Members" />
      <p role="status" className="notice">
        {notice}
      </p>
      {manage && <InviteForm onInvited={changed} />}
      <section aria-labelledby="members-heading">
        <h2 id="members-heading">Members of {me.tenant.name}</h2>
        <LoadState
          loading={members.loading && !members.data}
          error={members.error}
          empty={members.data !== undefined && rows.length === 0}
        >
          Nobody is a member yet.
        </LoadState>
        {rows.length > 0 && <MembersTable rows={rows} onChanged={changed} writable={manage} />}
      </section>
      {manage && <InvitationsSection invitations={invitations} onChanged={changed} />}
    </>
  );
}
