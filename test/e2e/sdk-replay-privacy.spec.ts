import { randomBytes } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { ensureSdkBuilt } from '../support/build-sdk';
import { startIngestProxy, type IngestProxy } from '../support/ingest-proxy';
import { startSdkPage, type SdkPageServer } from '../support/sdk-page';
import { controlGet, type TestServer } from '../support/svc-server';
import { expect, test } from './fixtures';

/**
 * Privacy end to end (issue 4): a page with every kind of sensitive field, `ob-block` and `ob-mask` elements, and
 * requests carrying credentials in headers and bodies. The test types known secrets, lets the SDK record and send
 * everything, and then searches every byte ingest received (decompressed: gzip request bodies and the base64 gzip
 * payload inside replay chunks) for each secret in several encodings. None may appear; the page's non-sensitive text
 * must. The SDK runs with `maskAllInputs: false`, so the sensitive fields are redacted by the always-on rules, not by
 * the option.
 */

let app: SdkPageServer;
test.beforeAll(async () => {
  await ensureSdkBuilt();
  app = await startSdkPage();
});
test.afterAll(async () => {
  await app.close();
});

const token = (label: string) => `${label}${randomBytes(9).toString('hex')}`;

/** A 16-digit Visa-style number that passes the Luhn check, so card detection cannot skip it as "not a card". */
function luhnCardNumber(): string {
  const digits = [4, ...Array.from(randomBytes(14), (b) => b % 10)];
  let sum = 0;
  for (let i = 0; i < 15; i++) {
    // Doubling every second digit from the right, counting the check digit as position 1.
    let d = digits[14 - i]!;
    if (i % 2 === 0) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return [...digits, (10 - (sum % 10)) % 10].join('');
}

/** Every secret the page holds or sends, by where it comes from. */
const secrets = {
  password: token('pw'),
  email: `${token('mail')}@example.com`,
  tel: `+4479${String(randomBytes(4).readUInt32BE()).padStart(10, '0')}`,
  hidden: token('hidden'),
  ccNumber: luhnCardNumber(),
  newPassword: token('newpw'),
  otp: token('otp'),
  apiKeyField: token('apikeyfield'),
  labelledSecret: token('answer'),
  textareaSecret: token('textarea'),
  blocked: token('blocked'),
  masked: token('masked'),
  authorization: token('bearer'),
  xApiKey: token('xkey'),
  sessionTokenHeader: token('sesstok'),
  bodyPassword: token('bodypw'),
  bodyToken: token('bodytoken'),
  bodyCard: luhnCardNumber(),
  formPassword: token('formpw'),
  xhrHeader: token('xhrauth'),
  cookie: token('cookie'),
  urlToken: token('urltoken'),
};

// The body note stays under 32 characters: a longer run ending in random hex reads as a secret to value redaction.
const visible = { typed: token('VisibleName'), paragraph: token('PublicParagraph'), bodyNote: token('PublicNote') };

function pageHtml(ingestUrl: string, ingest: TestServer): string {
  const config = {
    apiKey: ingest.ingestKey,
    serviceName: 'web-app',
    ingestUrl,
    flushIntervalMs: 200,
    replay: { maskAllInputs: false, flushIntervalMs: 500 },
  };
  return `<!doctype html><html><head><title>privacy</title><script src="/svc.min.js"></script>
<script>window.sdk = Svc.initBrowserSDK(${JSON.stringify(config)});</script></head>
<body>
<form onsubmit="return false">
  <label>Your name <input id="name" name="name"></label>
  <input id="pw" type="password" name="pw">
  <input id="mail" type="email" name="contact">
  <input id="tel" type="tel" name="phone">
  <input id="hidden" type="hidden" name="h" value="${secrets.hidden}">
  <input id="cc" name="c1" autocomplete="cc-number">
  <input id="newpw" name="np" autocomplete="new-password">
  <input id="otp" name="otp_code">
  <input id="apiKey" name="field7">
  <label for="answer">Secret answer</label><input id="answer" name="q1">
  <textarea id="notes" name="client_secret"></textarea>
</form>
<div class="ob-block" id="blocked">${secrets.blocked}</div>
<p class="ob-mask" id="masked">${secrets.masked}</p>
<p id="public">${visible.paragraph}</p>
</body></html>`;
}

/** The ways a secret could be written into a body: as is, URL-encoded, hex, and base64 at each byte alignment. */
function encodings(secret: string): string[] {
  const forms = new Set([secret, encodeURIComponent(secret), Buffer.from(secret).toString('hex')]);
  for (let shift = 0; shift < 3; shift++) {
    const b64 = Buffer.from('x'.repeat(shift) + secret).toString('base64');
    // Only the base64 characters computed from the secret's bytes alone: skip the group the padding touches.
    const start = Math.ceil(shift / 3) * 4;
    const end = Math.floor((shift + Buffer.byteLength(secret)) / 3) * 4;
    forms.add(b64.slice(start, end));
  }
  return [...forms];
}

/** Everything ingest received, as text: request bodies (already gunzipped by the proxy) plus decoded chunk payloads. */
function receivedText(proxy: IngestProxy): string {
  const parts: string[] = [];
  for (const request of proxy.seen) {
    parts.push(request.path, request.body);
    if (request.method !== 'POST' || !request.path.startsWith('/ingest/replay/chunk')) continue;
    const chunk = JSON.parse(request.body) as { encoding: string; data?: string };
    // Events sent inline are in the body already.
    if (chunk.data !== undefined)
      parts.push(
        chunk.encoding === 'gzip' ? gunzipSync(Buffer.from(chunk.data, 'base64')).toString('utf8') : chunk.data,
      );
  }
  return parts.join('\n');
}

/** The paths of the recipe steps ingest received with a response body. */
function recipeStepsWithResponse(proxy: IngestProxy): string[] {
  const paths: string[] = [];
  // Wherever the batch puts its steps: any object with a url and a response body is one.
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(visit);
    if (typeof value !== 'object' || value === null) return;
    const step = value as { url?: unknown; responseBody?: unknown };
    if (typeof step.url === 'string' && typeof step.responseBody === 'string')
      paths.push(new URL(step.url).pathname + new URL(step.url).search);
    Object.values(value).forEach(visit);
  };
  for (const request of proxy.posts('/ingest/replay/recipes')) visit(JSON.parse(request.body));
  return paths;
}

test('no secret typed, held or sent by the page reaches ingest in any encoding; public text does', async ({
  page,
  ingest,
}) => {
  const proxy = await startIngestProxy(ingest.url);
  try {
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    app.setHtml(pageHtml(proxy.url, ingest));
    await page.goto(`${app.origin}/`);
    await page.evaluate((cookie) => (document.cookie = `sid=${cookie}; path=/`), secrets.cookie);

    const typed: Array<[string, string]> = [
      ['#name', visible.typed],
      ['#pw', secrets.password],
      ['#mail', secrets.email],
      ['#tel', secrets.tel],
      ['#cc', secrets.ccNumber],
      ['#newpw', secrets.newPassword],
      ['#otp', secrets.otp],
      ['#apiKey', secrets.apiKeyField],
      ['#answer', secrets.labelledSecret],
      ['#notes', secrets.textareaSecret],
    ];
    for (const [selector, value] of typed) await page.locator(selector).pressSequentially(value, { delay: 5 });
    // A script changing a value attribute is recorded as a mutation, not an input event.
    await page.evaluate((value) => document.querySelector('#pw')!.setAttribute('value', value), secrets.password);

    type Sdk = { sessionId: string; flushReplay(): Promise<void>; shutdown(): Promise<void> };
    await page.evaluate(
      async ({ s, note }) => {
        const response = await fetch('/api/echo?kind=json', {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            authorization: `Bearer ${s.authorization}`,
            'x-api-key': s.xApiKey,
            'x-session-token': s.sessionTokenHeader,
          },
          body: JSON.stringify({
            user: 'alice',
            password: s.bodyPassword,
            payment: { card_number: s.bodyCard },
            nested: [{ api_token: s.bodyToken }],
            note,
          }),
        });
        await response.text();
        await new Promise<void>((resolve) => {
          const xhr = new XMLHttpRequest();
          xhr.open('POST', '/api/echo?kind=form');
          xhr.setRequestHeader('content-type', 'application/x-www-form-urlencoded');
          xhr.setRequestHeader('x-auth-token', s.xhrHeader);
          xhr.onloadend = () => resolve();
          xhr.send(`username=bob&password=${encodeURIComponent(s.formPassword)}&note=${encodeURIComponent(note)}`);
        });
        // After the requests, so that no Referer carries it: an address with a credential in its query.
        history.pushState({}, '', `/account?view=orders&token=${s.urlToken}`);
      },
      { s: secrets, note: visible.bodyNote },
    );
    // Response bodies are read off the clone after the app got its answer, and a recipe step is recorded only then:
    // wait for both steps to reach ingest with their response bodies, so the check below covers what those carry.
    await expect
      .poll(
        async () => {
          await page.evaluate(() => (window as unknown as { sdk: Sdk }).sdk.flushReplay());
          return recipeStepsWithResponse(proxy).sort();
        },
        { message: 'both recipe steps sent with their response bodies' },
      )
      .toEqual(['/api/echo?kind=form', '/api/echo?kind=json']);
    const sessionId = await page.evaluate(async () => {
      const { sdk } = window as unknown as { sdk: Sdk };
      await sdk.flushReplay();
      await sdk.shutdown();
      return sdk.sessionId;
    });
    expect(pageErrors).toEqual([]);
    await expect.poll(() => proxy.pending(), { message: 'every request to ingest answered' }).toBe(0);

    const received = receivedText(proxy);
    expect(proxy.posts('/ingest/replay/chunk').length, 'replay chunks sent').toBeGreaterThan(0);
    expect(proxy.posts('/ingest/replay/recipes').length, 'recipes sent').toBeGreaterThan(0);
    for (const [name, secret] of Object.entries(secrets)) {
      for (const form of encodings(secret)) {
        expect(received.includes(form), `secret "${name}" reached ingest as ${JSON.stringify(form)}`).toBe(false);
      }
    }
    for (const [name, text] of Object.entries(visible)) {
      expect(received.includes(text), `public text "${name}" reached ingest`).toBe(true);
    }

    // What was stored is what was received: read it back to be sure the server did not reassemble anything either.
    const stored = JSON.stringify([
      (await controlGet(ingest, `/replay/chunks?session_id=${sessionId}&limit=100`)).body,
      (await controlGet(ingest, `/recipes?session_id=${sessionId}&limit=1000`)).body,
      (await controlGet(ingest, `/logs?session_id=${sessionId}&limit=1000`)).body,
      (await controlGet(ingest, `/spans?session_id=${sessionId}&limit=1000`)).body,
    ]);
    for (const [name, secret] of Object.entries(secrets)) {
      expect(stored.includes(secret), `secret "${name}" stored`).toBe(false);
    }
    expect(stored).toContain(visible.typed);
    expect(stored).toContain('[REDACTED]');
    expect(stored).toContain('********');
  } finally {
    await proxy.close();
  }
});
