import { lazy, Suspense, useEffect, useState, type ComponentType } from 'react';
import { Redirect, Route, Switch, useLocation } from 'wouter';
import { onSignedOut } from './api/client';
import { fetchMe, type Me } from './api/types';
import { forgetKey, readKey, storeProject, watchKeyFragment } from './auth/key-store';
import { MeContext } from './auth/me-context';
import { refusalMessage, SignIn } from './auth/sign-in';
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
        <Route>
          <h1>Not found</h1>
          <p>No console page at this address.</p>
        </Route>
      </Switch>
    </Suspense>
  );
}

/** Signed in (a key in this tab that `/me` accepts) or the sign-in form; a refused key anywhere signs out. */
export function App() {
  const [me, setMe] = useState<Me | null>(null);
  const [checking, setChecking] = useState(() => readKey() !== null);
  const [notice, setNotice] = useState<string | undefined>();
  const [, navigate] = useLocation();
  useEffect(() => {
    if (!checking) return;
    fetchMe()
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
        setNotice('The server refused your key (revoked or expired); sign in again.');
      }),
    [],
  );
  if (checking) return <LoadState loading />;
  if (!me) return <SignIn onSignedIn={setMe} notice={notice} />;
  const signOut = () => {
    forgetKey();
    setMe(null);
    setNotice('Signed out.');
    navigate('/');
  };
  // An admin key's project switcher: every page asks again for the chosen project, from its list of sessions.
  const switchProject = (id: string) => {
    storeProject(id);
    navigate('/sessions');
    setChecking(true);
  };
  return (
    <MeContext.Provider value={me}>
      <Layout me={me} onSignOut={signOut} onSwitchProject={switchProject}>
        <Routes />
      </Layout>
    </MeContext.Provider>
  );
}
