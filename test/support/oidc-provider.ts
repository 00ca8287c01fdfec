import { generateKeyPairSync } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider, { type Adapter, type AdapterPayload, type Configuration, type JWK } from 'oidc-provider';

/** A person the provider knows; claims left out are not sent (a user without `email` tests the missing claim). */
export interface OidcUser {
  /** The account id, sent as `sub`, and what the sign-in form asks for. */
  id: string;
  email?: string;
  emailVerified?: boolean;
  name?: string;
  groups?: string[];
}

export interface OidcProviderOptions {
  /** Callback URLs the client may use. */
  redirectUris: string[];
  users: OidcUser[];
  clientId?: string;
  /** The client's secret; null registers a public client (PKCE only). Default: a confidential client. */
  clientSecret?: string | null;
  /** ID-token lifetime in seconds (default 3600). */
  idTokenTtlSeconds?: number;
}

export interface TestOidcProvider {
  /** The issuer identifier, `http://127.0.0.1:<port>`: what SVC_OIDC_ISSUER is set to. */
  issuer: string;
  clientId: string;
  /** Undefined for a public client. */
  clientSecret?: string;
  /**
   * From now on, the token endpoint signs ID tokens with a key the issuer does not publish (same `kid`, other key):
   * a forged token, as a man in the middle or a leaked-then-rotated key would produce. `false` restores the real key.
   */
  forgeSignatures(on: boolean): void;
  /**
   * Plays the browser: follows the authorization URL's redirects with a cookie jar, posts the sign-in form as
   * `accountId` (login and consent at once), and returns the URL the provider redirects back to (the callback with
   * `code` and `state`, or `error`), without requesting it. An unknown `accountId` is refused (access_denied).
   */
  signIn(authorizationUrl: URL, accountId: string): Promise<URL>;
  close(): Promise<void>;
}

const KID = 'svc-test-signing-key';

function signingKey(): JWK {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { ...(privateKey.export({ format: 'jwk' }) as JWK), kid: KID, alg: 'RS256', use: 'sig' };
}

/** Storage both providers (real and forging) share, so a code issued by one can be redeemed at the other. */
function sharedAdapter(): new (name: string) => Adapter {
  const store = new Map<string, AdapterPayload>();
  const byUid = new Map<string, string>();
  return class MapAdapter implements Adapter {
    constructor(private readonly model: string) {}
    private key = (id: string) => `${this.model}:${id}`;
    async upsert(id: string, payload: AdapterPayload): Promise<void> {
      store.set(this.key(id), payload);
      if (payload.uid) byUid.set(payload.uid, id);
    }
    async find(id: string): Promise<AdapterPayload | undefined> {
      return store.get(this.key(id));
    }
    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      const id = byUid.get(uid);
      return id === undefined ? undefined : this.find(id);
    }
    async findByUserCode(): Promise<undefined> {
      return undefined;
    }
    async consume(id: string): Promise<void> {
      const payload = store.get(this.key(id));
      if (payload) payload.consumed = Math.floor(Date.now() / 1000);
    }
    async destroy(id: string): Promise<void> {
      store.delete(this.key(id));
    }
    async revokeByGrantId(grantId: string): Promise<void> {
      for (const [key, payload] of store) if (payload.grantId === grantId) store.delete(key);
    }
  };
}

interface RegisteredClient {
  clientId: string;
  clientSecret?: string;
}

function providerConfiguration(
  options: OidcProviderOptions,
  client: RegisteredClient,
  key: JWK,
  adapter: Configuration['adapter'],
): Configuration {
  const users = new Map(options.users.map((user) => [user.id, user]));
  const secret = client.clientSecret;
  return {
    adapter,
    clients: [
      {
        client_id: client.clientId,
        ...(secret === undefined ? { token_endpoint_auth_method: 'none' } : { client_secret: secret }),
        redirect_uris: options.redirectUris,
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    jwks: { keys: [key] },
    cookies: { keys: ['svc-test-cookie-key'] },
    // Groups travel with `openid`, as Dex and a Keycloak groups mapper send them; e-mail and name with their scopes.
    claims: { openid: ['sub', 'groups'], email: ['email', 'email_verified'], profile: ['name'] },
    findAccount: (_ctx, id) => {
      const user = users.get(id);
      if (!user) return undefined;
      const { email, emailVerified, name, groups } = user;
      const claims = { sub: id, email, email_verified: email === undefined ? undefined : (emailVerified ?? true) };
      return { accountId: id, claims: () => ({ ...claims, name, groups }) };
    },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    features: { devInteractions: { enabled: false } },
    pkce: { required: () => true },
    ttl: {
      IdToken: options.idTokenTtlSeconds ?? 3600,
      AccessToken: 3600,
      Grant: 3600,
      Interaction: 600,
      Session: 3600,
    },
  };
}

async function formBody(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

const escapeHtml = (text: string) => text.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);

/** The provider's sign-in page: one form, so Chromium can fill it in and `signIn` can post it. */
async function interaction(provider: Provider, req: IncomingMessage, res: ServerResponse, users: Set<string>) {
  const details = await provider.interactionDetails(req, res);
  if (req.method !== 'POST') {
    const client = escapeHtml(String(details.params['client_id']));
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(
      `<!doctype html><title>Test provider: sign in</title><h1>Sign in to ${client}</h1>` +
        `<form method="post" action="/interaction/${details.uid}"><label>Account <input name="login" autofocus></label>` +
        `<button type="submit">Sign in</button></form>`,
    );
    return;
  }
  const accountId = (await formBody(req)).get('login') ?? '';
  if (!users.has(accountId)) {
    const result = { error: 'access_denied', error_description: `no account ${accountId}` };
    await provider.interactionFinished(req, res, result, { mergeWithLastSubmission: false });
    return;
  }
  const grant = new provider.Grant({ accountId, clientId: String(details.params['client_id']) });
  grant.addOIDCScope(String(details.params['scope']));
  const grantId = await grant.save();
  const result = { login: { accountId }, consent: { grantId } };
  await provider.interactionFinished(req, res, result, { mergeWithLastSubmission: false });
}

/** Follows redirects within the provider, keeping its cookies, until one leaves it (the client's callback). */
async function browse(issuer: string, start: URL, accountId: string): Promise<URL> {
  const jar = new Map<string, string>();
  let url = start;
  let init: RequestInit = {};
  for (let hop = 0; hop < 10; hop++) {
    const headers = {
      ...(init.headers as Record<string, string>),
      cookie: [...jar].map((c) => c.join('=')).join('; '),
    };
    const res = await fetch(url, { ...init, headers, redirect: 'manual' });
    for (const cookie of res.headers.getSetCookie()) {
      const [pair = ''] = cookie.split(';');
      const at = pair.indexOf('=');
      jar.set(pair.slice(0, at), pair.slice(at + 1));
    }
    const location = res.headers.get('location');
    const body = await res.text();
    if (res.status === 200 && url.pathname.startsWith('/interaction/')) {
      init = { method: 'POST', body: new URLSearchParams({ login: accountId }) };
      continue;
    }
    if (!location) throw new Error(`the provider answered ${res.status} at ${url.pathname}: ${body}`);
    url = new URL(location, url);
    init = {};
    if (url.origin !== new URL(issuer).origin) return url;
  }
  throw new Error('the provider redirected more than 10 times');
}

/**
 * A real OpenID provider (`oidc-provider`) on loopback with one client and `users`, plus a twin that signs with another
 * key for `forgeSignatures`. Both share storage, so codes are single-use across them.
 */
export async function startOidcProvider(options: OidcProviderOptions): Promise<TestOidcProvider> {
  let forge = false;
  // Listening first: the issuer URL (with its port) is part of each provider's configuration.
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const secret = options.clientSecret === undefined ? 'svc-test-client-secret' : options.clientSecret;
  const client: RegisteredClient = {
    clientId: options.clientId ?? 'svc-console',
    ...(secret === null ? {} : { clientSecret: secret }),
  };
  const adapter = sharedAdapter();
  const provider = new Provider(issuer, providerConfiguration(options, client, signingKey(), adapter));
  const forger = new Provider(issuer, providerConfiguration(options, client, signingKey(), adapter));
  const [real, forged] = [provider.callback(), forger.callback()];
  const users = new Set(options.users.map((user) => user.id));
  const route = async (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', issuer).pathname;
    if (path.startsWith('/interaction/')) return interaction(provider, req, res, users);
    (forge && path === '/token' ? forged : real)(req, res);
  };
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    route(req, res).catch((error: unknown) => res.writeHead(500).end(String(error)));
  });
  return {
    issuer,
    ...client,
    forgeSignatures: (on) => {
      forge = on;
    },
    signIn: (authorizationUrl, accountId) => browse(issuer, authorizationUrl, accountId),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
