import { lazy, Suspense, useEffect, useRef, useState, type ComponentType } from 'react';
import { Redirect, Route, Switch, useLocation } from 'wouter';
import { onSignedOut } from './api/client';
import { fetchSession, forgetSession, signOutSession } from './api/console-session';
import { fetchMe, type Me } from './api/types';
import { JoinPage } from './auth/join-page';
import { forgetKey, readKey, storeProject, watchKeyFragment } from './auth/key-store';
import { refusalMessage } from './auth/key-sign-in';
import { MeContext } from './auth/me-context';
import { ResetPage } from './auth/reset-page';
import { SignIn } from './auth/sign-in';
import { WelcomePage } from './auth/welcome-page';
import { Layout } from './ui/layout';
import { LoadState } from './ui/status';

/** Each page is its own chunk: the first load carries the frame and one page, and the replay player only with a replay. */
const page = (load: () => Promise<{ default: ComponentType }>) => lazy(load);
const SessionsPage = page(() => import('./pages/sessions/sessions-page'));
const SessionPage = page(() => import('./pages/session/session-page'));
const IssuesPage = page(() => import('./pages/issues/issues-page'));
const IssuePage = page(() => import('./pages/issues/issue-page'));
const TracesPage = page(() => import('./pages/traces/traces-page'));
const TracePage = page(() => import('./pages/traces/trace-page'));
const VitalsPage = page(() => import('./pages/vitals/vitals-page'));
const ReleasesPage = page(() => import('./pages/releases/releases-page'));
const AlertsPage = page(() => import('./pages/alerts/alerts-page'));
const AlertRulePage = page(() => import('./pages/alerts/rule-page'));
const IncidentsPage = page(() => import('./pages/incidents/incidents-page'));
const IncidentPage = page(() => import('./pages/incidents/incident-page'));
const NotificationsPage = page(() => import('./pages/notifications/notifications-page'));
const CostPage = page(() => import('./pages/cost/cost-page'));
const TestRunsPage = page(() => import('./pages/test-runs/test-runs-page'));
const TestRunPage = page(() => import('./pages/test-runs/test-run-page'));
const FlakyTestsPage = page(() => import('./pages/test-runs/flaky-tests-page'));
const TestPage = page(() => import('./pages/test-runs/test-page'));
const IngestHealthPage = page(() => import('./pages/ingest-health/ingest-health-page'));
const SetupPage = page(() => import('./pages/setup/setup-page'));
const MembersPage = page(() => import('./pages/team/members-page'));
const KeysPage = page(() => import('./pages/team/keys-page'));
const AuditPage = page(() => import('./pages/team/audit-page'));
const AccountPage = page(() => import('./pages/team/account-page'));
const OrganisationPage = page(() => import('./pages/team/organisation-page'));
const RetentionPage = page(() => import('./pages/retention/retention-page'));
const ErasuresPage = page(() => import('./pages/erasures/erasures-page'));
const UsagePage = page(() => import('./pages/usage/usage-page'));

/** Pages of a person not signed in; once signed in they lead to the console's first page. */
const SIGNED_OUT_PAGES = ['/sign-in', '/welcome', '/join', '/reset'] as const;

function Routes() {
  return (
    <Suspense fallback={<LoadState loading />}>
      <Switch>
        <Route path="/">
          <Redirect to="/sessions" replace />
        </Route>
        <Route path="/sessions" component={SessionsPage} />
        <Route path="/session/:id" component={SessionPage} />
        <Route path="/issues" component={IssuesPage} />
        <Route path="/issue/:id" component={IssuePage} />
        <Route path="/traces" component={TracesPage} />
        <Route path="/trace/:id" component={TracePage} />
        <Route path="/vitals" component={VitalsPage} />
        <Route path="/releases" component={ReleasesPage} />
        <Route path="/alerts" component={AlertsPage} />
        <Route path="/alert/:id" component={AlertRulePage} />
        <Route path="/incidents" component={IncidentsPage} />
        <Route path="/incident/:id" component={IncidentPage} />
        <Route path="/notifications" component={NotificationsPage} />
        <Route path="/cost" component={CostPage} />
        <Route path="/test-runs" component={TestRunsPage} />
        <Route path="/test-run/:id" component={TestRunPage} />
        <Route path="/tests/flaky" component={FlakyTestsPage} />
        <Route path="/test/:id" component={TestPage} />
        <Route path="/ingest-health" component={IngestHealthPage} />
        <Route path="/setup" component={SetupPage} />
        <Route path="/members" component={MembersPage} />
        <Route path="/keys" component={KeysPage} />
        <Route path="/audit" component={AuditPage} />
        <Route path="/account" component={AccountPage} />
        <Route path="/organisation" component={OrganisationPage} />
        <Route path="/retention" component={RetentionPage} />
        <Route path="/erasures" component={ErasuresPage} />
        <Route path="/usage" component={UsagePage} />
        {SIGNED_OUT_PAGES.map((path) => (
          <Route key={path} path={path}>
            <Redirect to="/" replace />
          </Route>
        ))}
        <Route>
          <h1>Not found</h1>
          <p>No console page at this address.</p>
        </Route>
      </Switch>
    </Suspense>
  );
}

/** Who this tab is signed in as: the tab's key, else the browser's console session (cookie), else nobody. */
async function whoIsSignedIn(): Promise<Me | null> {
  if (readKey() !== null) return fetchMe();
  return (await fetchSession()) ? fetchMe() : null;
}

/** Before signing in: the set-up, invitation and reset links' pages, and sign-in at every other address. */
function SignedOut(props: Parameters<typeof SignIn>[0]) {
  const { onSession } = props;
  const [path] = useLocation();
  if (path === '/welcome') return <WelcomePage onSession={onSession} />;
  if (path === '/join') return <JoinPage onSession={onSession} />;
  if (path === '/reset') return <ResetPage onSession={onSession} />;
  return <SignIn {...props} />;
}

/**
 * Signed in (a key in this tab, or a console session's cookie, that `/me` accepts) or the pages before signing in; a
 * refused key or an ended session anywhere signs out.
 */
export function App() {
  const [me, setMe] = useState<Me | null>(null);
  const [checking, setChecking] = useState(true);
  const [notice, setNotice] = useState<string | undefined>();
  const [, navigate] = useLocation();
  // Whether the signed-in caller is a key, for the words when the server stops accepting it.
  const withKey = useRef(false);
  useEffect(() => {
    if (!checking) return;
    withKey.current = readKey() !== null;
    whoIsSignedIn()
      .then(
        (m) => setMe(m),
        (e: unknown) => {
          setMe(null);
          setNotice(`${refusalMessage(e)} Sign in again.`);
        },
      )
      .finally(() => setChecking(false));
  }, [checking]);
  // A console link pasted into this tab: sign in with its key as a page load would.
  useEffect(() => watchKeyFragment(() => setChecking(true)), []);
  useEffect(
    () =>
      onSignedOut(() => {
        setMe(null);
        forgetSession();
        setNotice(
          withKey.current
            ? 'The server refused your key (revoked or expired); sign in again.'
            : 'Your session has ended (signed out, expired or revoked); sign in again.',
        );
      }),
    [],
  );
  if (checking) return <LoadState loading />;
  if (!me) {
    const keySignedIn = (m: Me) => {
      withKey.current = true;
      setMe(m);
    };
    return (
      <SignedOut
        onSignedIn={keySignedIn}
        onSession={() => setChecking(true)}
        notice={notice}
        preferKey={withKey.current}
      />
    );
  }
  const signOut = async () => {
    if (me.key) forgetKey();
    else await signOutSession().catch(() => undefined);
    setMe(null);
    setNotice('Signed out.');
    navigate('/');
  };
  // The project switcher (an admin key's, a person's): every page asks again for the chosen project.
  const switchProject = (id: string) => {
    storeProject(id);
    navigate('/sessions');
    setChecking(true);
  };
  return (
    <MeContext.Provider value={me}>
      <Layout me={me} onSignOut={() => void signOut()} onSwitchProject={switchProject}>
        <Routes />
      </Layout>
    </MeContext.Provider>
  );
}
