import type { TempDatabase } from './databases';
import { freePort } from './examples';
import { startOidcProvider, type OidcUser, type TestOidcProvider } from './oidc-provider';
import { createLastingDatabase, startServerProcess, type ServerProcess } from './server-process';

/** `svc-server start` signing people in through a real OpenID provider on loopback. */
export interface SsoServer {
  provider: TestOidcProvider;
  server: ServerProcess;
  close(): Promise<void>;
}

/**
 * Starts the provider with `users`, then `svc-server start` on a SQLite file with SVC_OIDC_* pointing at it, as flags
 * (`flags` adds or overrides, e.g. `{ 'oidc-group-roles': 'svc-admins=admin' }`).
 */
export async function startSsoServer(users: OidcUser[], flags: Record<string, string>): Promise<SsoServer> {
  // The provider registers the callback before the server starts, so the server's port is chosen first.
  const port = await freePort();
  const provider = await startOidcProvider({ redirectUris: [`http://127.0.0.1:${port}/auth/oidc/callback`], users });
  let database: TempDatabase | undefined;
  let server: ServerProcess | undefined;
  const close = async () => {
    await server?.stop();
    await database?.drop();
    await provider.close();
  };
  try {
    database = await createLastingDatabase('sqlite');
    server = await startServerProcess({
      'database-url': database.url,
      port: String(port),
      'oidc-issuer': provider.issuer,
      'oidc-client-id': provider.clientId,
      'oidc-client-secret': provider.clientSecret ?? '',
      ...flags,
    });
  } catch (error) {
    await close();
    throw error;
  }
  return { provider, server, close };
}
