import { useId, type ReactNode } from 'react';
import { Link, useLocation } from 'wouter';
import { can, type Me } from '../api/types';
import { timeZoneLabel } from './format';
import { GlobalSearch } from './global-search';

const NAV = [
  { href: '/sessions', label: 'Sessions', match: ['/sessions', '/session/'] },
  { href: '/issues', label: 'Issues', match: ['/issues', '/issue/'] },
  { href: '/traces', label: 'Traces', match: ['/traces', '/trace/'] },
  { href: '/vitals', label: 'Web Vitals', match: ['/vitals'] },
  { href: '/releases', label: 'Releases', match: ['/releases'] },
  { href: '/incidents', label: 'Incidents', match: ['/incidents', '/incident/'] },
  { href: '/alerts', label: 'Alerts', match: ['/alerts', '/alert/'] },
  { href: '/notifications', label: 'Notifications', match: ['/notifications'] },
  { href: '/cost', label: 'Cost', match: ['/cost'] },
  { href: '/test-runs', label: 'Test runs', match: ['/test-runs', '/test-run/', '/tests/', '/test/'] },
  { href: '/ingest-health', label: 'Ingest health', match: ['/ingest-health'] },
  { href: '/setup', label: 'Set up', match: ['/setup'] },
  { href: '/retention', label: 'Data retention', match: ['/retention'] },
  { href: '/erasures', label: 'Deletion requests', match: ['/erasures'] },
  { href: '/usage', label: 'Usage and limits', match: ['/usage'] },
] as const;

/** The organisation's pages, each shown to whom may use it (the server refuses the others anyway). */
const TEAM_NAV = [
  { href: '/members', label: 'Members', match: ['/members'], shown: (me: Me) => can(me, 'members.manage') },
  { href: '/keys', label: 'Keys', match: ['/keys'], shown: (me: Me) => can(me, 'keys.manage') },
  { href: '/audit', label: 'Audit log', match: ['/audit'], shown: (me: Me) => can(me, 'audit.view') },
  {
    href: '/organisation',
    label: 'Organisation',
    match: ['/organisation'],
    shown: (me: Me) => can(me, 'project.view'),
  },
  { href: '/account', label: 'My sessions', match: ['/account'], shown: (me: Me) => me.person !== null },
] as const;

/** The project's name, or for an admin key a menu of its tenant's projects that switches the console to another. */
function ProjectName({ me, onSwitch }: { me: Me; onSwitch: (id: string) => void }) {
  const id = useId();
  if (me.projects.length < 2 && me.key?.scope !== 'admin') {
    return (
      <span className="project" title={`project ${me.project.id}`}>
        {me.project.name}
      </span>
    );
  }
  return (
    <span className="project project-switcher">
      <label htmlFor={id}>Project</label>
      <select id={id} value={me.project.id} onChange={(e) => onSwitch(e.currentTarget.value)}>
        {me.projects.map((p) => (
          <option key={p.id} value={p.id}>
            {p.name}
          </option>
        ))}
      </select>
    </span>
  );
}

/** The frame of every signed-in page: skip link, header with the project and key scope, navigation, main region. */
export function Layout({
  me,
  onSignOut,
  onSwitchProject,
  children,
}: {
  me: Me;
  onSignOut: () => void;
  onSwitchProject: (id: string) => void;
  children: ReactNode;
}) {
  const [path] = useLocation();
  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="top-bar">
        <Link href="/sessions" className="brand">
          svc
        </Link>
        <ProjectName me={me} onSwitch={onSwitchProject} />
        {me.key?.scope === 'read' && <span className="badge badge-info">read only</span>}
        {me.key?.scope === 'admin' && <span className="badge badge-info">admin</span>}
        {me.person && (
          <span className="person" title={me.person.email}>
            {me.person.name} <span className="badge badge-info">{me.person.role}</span>
          </span>
        )}
        <span className="spacer" />
        <GlobalSearch />
        <span className="time-zone" title="Every time in the console is in this zone">
          Times: {timeZoneLabel()}
        </span>
        <a href="/docs/api">API</a>
        <button type="button" onClick={onSignOut}>
          Sign out
        </button>
      </header>
      <nav className="side-nav" aria-label="Console">
        <ul>
          {[...NAV, ...TEAM_NAV.filter((item) => item.shown(me))].map((item) => {
            const current = item.match.some((m) => path === m || (m.endsWith('/') && path.startsWith(m)));
            return (
              <li key={item.href}>
                <Link href={item.href} aria-current={current ? 'page' : undefined}>
                  {item.label}
                </Link>
              </li>
            );
          })}
        </ul>
      </nav>
      <main id="main" tabIndex={-1}>
        {children}
      </main>
    </div>
  );
}

/** A page's heading and its actions. */
export function PageHeader({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="page-header">
      <h1>{title}</h1>
      {children && <div className="page-actions">{children}</div>}
    </div>
  );
}
