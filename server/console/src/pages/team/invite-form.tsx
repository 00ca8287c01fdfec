import { useId, useState, type FormEvent } from 'react';
import { parseResponse } from 'hono/client';
import { invitationsClient } from '../../api/typed';
import { useMe } from '../../auth/me-context';
import { CopyButton } from '../../ui/copy-button';
import { ActionError, useAction } from '../../ui/use-action';
import { grantableRoles, type NewInvitation, type Role } from './types';

/** The invitation's link, shown this once (the server keeps only its hash); it is e-mailed too when SMTP is set. */
function InvitationLink({ invitation }: { invitation: NewInvitation }) {
  return (
    <div className="panel secret-once" role="region" aria-label="Invitation link">
      <p>
        Invitation for <strong>{invitation.email}</strong> as {invitation.role}. Send them this link; it is shown this
        once and works once:
      </p>
      <code className="mono">{invitation.link}</code>
      <CopyButton text={invitation.link} label="invitation link" />
    </div>
  );
}

/** Invites a person by e-mail with a role `me` may grant; shows the one-time link. */
export function InviteForm({ onInvited }: { onInvited: (notice: string) => void }) {
  const me = useMe();
  const id = useId();
  const [created, setCreated] = useState<NewInvitation>();
  const invite = useAction(async (email: string, role: Role) => {
    const answer = await parseResponse(invitationsClient.index.$post({ json: { email, role } }));
    setCreated(answer);
    onInvited(`Invitation for ${email} created.`);
  });
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    void invite.run(String(data.get('email') ?? '').trim(), String(data.get('role')) as Role);
  };
  return (
    <section aria-labelledby={`${id}-title`} className="panel">
      <h2 id={`${id}-title`}>Invite a person</h2>
      <form className="inline-form" onSubmit={submit}>
        <div className="field">
          <label htmlFor={`${id}-email`}>E-mail</label>
          <input id={`${id}-email`} name="email" type="email" required autoComplete="off" />
        </div>
        <div className="field">
          <label htmlFor={`${id}-role`}>Role</label>
          <select id={`${id}-role`} name="role" defaultValue="member">
            {grantableRoles(me).map((role) => (
              <option key={role} value={role}>
                {role}
              </option>
            ))}
          </select>
        </div>
        <button type="submit" className="primary" disabled={invite.busy}>
          Invite
        </button>
      </form>
      <ActionError error={invite.error} className="state state-error" />
      {created && <InvitationLink invitation={created} />}
    </section>
  );
}
