import type { ReactNode } from 'react';
import { Link, useLocation } from 'wouter';
import type { Me } from '../api/types';

const NAV = [
  { href: '/sessions', label: 'Sessions', match: ['/sessions', '/session/'] },
  { href: '/issues', label: 'Issues', match: ['/issues', '/issue/'] },
  { href: '/traces', label: 'Traces', match: ['/traces', '/trace/'] },
  { href: '/vitals', label: 'Web Vitals', match: ['/vitals'] },
  { href: '/incidents', label: 'Incidents', match: ['/incidents', '/incident/'] },
  { href: '/notifications', label: 'Notifications', match: ['/notifications'] },
  { href: '/cost', label: 'Cost', match: ['/cost'] },
  { href: '/test-runs', label: 'Test runs', match: ['/test-runs', '/test-run/', '/tests/', '/test/'] },
] as const;

/** The frame of every signed-in page: skip link, header with the project and key scope, navigation, main region. */
export function Layout({ me, onSignOut, children }: { me: Me; onSignOut: () => void; children: ReactNode }) {
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
        <span className="project" title={`project ${me.project.id}`}>
          {me.project.name}
        </span>
        {me.key.scope === 'read' && <span className="badge badge-info">read only</span>}
        <span className="spacer" />
        <a href="/docs/api">API</a>
        <button type="button" onClick={onSignOut}>
          Sign out
        </button>
      </header>
      <nav className="side-nav" aria-label="Console">
        <ul>
          {NAV.map((item) => {
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
