import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Clock } from '../../server/src/clock';
import { createGuardedHttp } from '../../server/src/notify/http/guarded-http';
import { smsKind, SMS_MAX_CHARACTERS } from '../../server/src/notify/kinds/telephony/sms';
import {
  parseTelephonyIntegration,
  type TelephonyConfig,
  type TelephonySecrets,
} from '../../server/src/notify/kinds/telephony/account';
import type { NoSecrets, PhoneRecipients } from '../../server/src/notify/kinds/telephony/channel';
import { countWords, SPEECH_MAX_WORDS, TWIML_MAX_CHARACTERS } from '../../server/src/notify/kinds/telephony/speech';
import type {
  ChannelKind,
  IncidentNotice,
  Integrations,
  SendContext,
  ThreadRef,
} from '../../server/src/notify/kinds/types';
import { voiceKind } from '../../server/src/notify/kinds/telephony/voice';
import { serveLocally, type LocalServer } from '../support/local-server';
import { incidentNotice } from '../support/notice';
import { refusalFrom } from '../support/refusal';

const ACCOUNT_SID = `AC${'a1'.repeat(16)}`;
const AUTH_TOKEN = 'f'.repeat(32);
const FROM = '+15005550006';
const SERVICE_SID = `MG${'b2'.repeat(16)}`;
const ACK_URL = 'https://svc.example/n/ack?incident=inc_42&expires=1700003600&sig=abc%2Fdef';

const clock: Clock = { now: () => 1_700_000_000_000 };
const http = createGuardedHttp({ allowPrivateTargets: true });

/** What the fake Twilio saw of one request. */
interface TwilioRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  contentType: string | undefined;
  form: Record<string, string>;
}
interface TwilioAnswer {
  status: number;
  body: Record<string, unknown>;
  headers?: Record<string, string>;
}

/** Twilio's REST API as far as the kinds use it: Basic auth, form bodies, 201 with a SID, JSON errors with a code. */
let twilio: LocalServer;
const received: TwilioRequest[] = [];
/** Answers queued per `To` number; a number with none queued is accepted. */
const scripted = new Map<string, TwilioAnswer[]>();

beforeAll(async () => {
  twilio = await serveLocally((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const form = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
      received.push({
        method: req.method ?? '',
        path: req.url ?? '',
        authorization: req.headers.authorization,
        contentType: req.headers['content-type'],
        form,
      });
      const expected = `Basic ${Buffer.from(`${ACCOUNT_SID}:${AUTH_TOKEN}`).toString('base64')}`;
      const resource = /\/(Messages|Calls)\.json$/.exec(req.url ?? '')?.[1];
      const answer: TwilioAnswer =
        req.headers.authorization !== expected
          ? { status: 401, body: { code: 20003, message: 'Authenticate', status: 401 } }
          : (scripted.get(form.To ?? '')?.shift() ?? {
              status: 201,
              body: {
                sid: `${resource === 'Calls' ? 'CA' : 'SM'}${String(received.length).padStart(32, '0')}`,
                status: 'queued',
                to: form.To,
              },
            });
      res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
      res.end(JSON.stringify(answer.body));
    });
  });
});
afterAll(() => twilio.close());
beforeEach(() => {
  received.length = 0;
  scripted.clear();
});

function account(overrides: Record<string, unknown> = {}): Integrations {
  const stored = parseTelephonyIntegration({
    account_sid: ACCOUNT_SID,
    auth_token: AUTH_TOKEN,
    from: FROM,
    api_base_url: twilio.origin,
    ...overrides,
  });
  return { get: async (kind) => (kind === 'telephony' ? stored : undefined) };
}
const noAccount: Integrations = { get: async () => undefined };

function memory(): ThreadRef {
  let value: string | undefined;
  return { get: async () => value, set: async (next) => void (value = next) };
}

function notice(
  overrides: Partial<IncidentNotice['payload']> = {},
  status: IncidentNotice['status'] = 'detected',
): IncidentNotice {
  return incidentNotice({
    payload: {
      title: 'Checkout fails for card payments',
      root_cause_summary: 'TypeError in PaymentForm since release 2.3.1. 212 errors in 5 minutes.',
      ...overrides,
    },
    status,
    detected_at: '2023-11-14T22:13:20.000Z',
    acknowledge_url: ACK_URL,
    resolve_url: 'https://svc.example/n/resolve?incident=inc_42&sig=xyz',
  });
}

async function send(
  kind: ChannelKind<PhoneRecipients, NoSecrets>,
  to: string[],
  options: { notice?: IncidentNotice; integrations?: Integrations; thread?: ThreadRef; attempt?: number } = {},
) {
  const integrations = options.integrations ?? account();
  const { config, secrets } = await kind.parse({ to }, { integrations });
  const context: SendContext<PhoneRecipients, NoSecrets> = {
    config,
    secrets,
    notice: options.notice ?? notice(),
    deliveryId: 'dlv_1',
    attempt: options.attempt ?? 1,
    http,
    clock,
    thread: options.thread ?? memory(),
    integrations,
  };
  return kind.send(context);
}

/** The `<Say>` texts of a TwiML document, unescaped, and the Gather's action. */
function readTwiml(twiml: string) {
  const unescape = (text: string) =>
    text
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&quot;/g, '"')
      .replace(/&apos;/g, "'")
      .replace(/&amp;/g, '&');
  return {
    said: [...twiml.matchAll(/<Say>([^<]*)<\/Say>/g)].map((match) => unescape(match[1]!)),
    action: /<Gather [^>]*action="([^"]*)"/.exec(twiml)?.[1],
  };
}

describe('telephony integration', () => {
  it('keeps the auth token apart from what the API shows, with the default API address', () => {
    const { config, secrets } = parseTelephonyIntegration({
      provider: 'twilio',
      account_sid: ACCOUNT_SID,
      auth_token: AUTH_TOKEN,
      from: FROM,
    });
    expect(config).toEqual<TelephonyConfig>({
      provider: 'twilio',
      account_sid: ACCOUNT_SID,
      from: FROM,
      messaging_service_sid: null,
      api_base_url: 'https://api.twilio.com',
    });
    expect(secrets).toEqual<TelephonySecrets>({ auth_token: AUTH_TOKEN });
    expect(JSON.stringify(config)).not.toContain(AUTH_TOKEN);
  });

  it.each([
    [{ provider: 'vonage' }, 'provider'],
    [{ account_sid: 'AC123' }, 'account_sid'],
    [{ account_sid: undefined }, 'account_sid'],
    [{ auth_token: '' }, 'auth_token'],
    [{ from: '5551234' }, 'from'],
    [{ from: undefined }, 'from'],
    [{ from: undefined, messaging_service_sid: 'MG1' }, 'messaging_service_sid'],
    [{ api_base_url: 'ftp://api.twilio.com' }, 'api_base_url'],
    [{ api_base_url: 'https://user:pw@api.twilio.com' }, 'api_base_url'],
  ])('refuses %j with a 400 naming %s', async (change, field) => {
    const input = { account_sid: ACCOUNT_SID, auth_token: AUTH_TOKEN, from: FROM, ...change };
    expect(await refusalFrom(() => parseTelephonyIntegration(input))).toMatchObject({
      status: 400,
      details: { field },
    });
  });
});

describe('sms and voice config', () => {
  it('needs a connected telephony account', async () => {
    for (const kind of [smsKind, voiceKind]) {
      expect(await refusalFrom(() => kind.parse({ to: [FROM] }, { integrations: noAccount }))).toMatchObject({
        status: 400,
        message: 'config: connect a telephony account first: PUT /control-plane/integrations/telephony',
        details: { field: 'config' },
      });
    }
  });

  it('refuses calls from an account that only has a messaging service, which can still send SMS', async () => {
    const integrations = account({ from: undefined, messaging_service_sid: SERVICE_SID });
    expect(await refusalFrom(() => voiceKind.parse({ to: [FROM] }, { integrations }))).toMatchObject({
      status: 400,
      details: { field: 'config' },
      message: expect.stringContaining('"from" number'),
    });
    await expect(smsKind.parse({ to: [FROM] }, { integrations })).resolves.toEqual({
      config: { to: [FROM] },
      secrets: {},
    });
  });

  it.each([
    [{}, 'config.to'],
    [{ to: [] }, 'config.to'],
    [{ to: '+14155550100' }, 'config.to'],
    [{ to: Array.from({ length: 11 }, (_, i) => `+1415555010${i}`) }, 'config.to'],
    [{ to: ['+14155550100', '+14155550101', '0041 44 668 18 00'] }, 'config.to[2]'],
    [{ to: ['+14155550100', 42] }, 'config.to[1]'],
    [{ to: ['+14155550100', '+1 415 555 0100'] }, 'config.to[1]'],
  ])('refuses %j with a 400 naming %s', async (config, field) => {
    expect(await refusalFrom(() => smsKind.parse(config, { integrations: account() }))).toMatchObject({
      status: 400,
      details: { field },
    });
  });

  it('writes numbers the E.164 way and shows only them', async () => {
    const { config } = await smsKind.parse(
      { to: ['+1 (415) 555-0100', '+44.20.7946.0958'] },
      { integrations: account() },
    );
    expect(smsKind.publicConfig(config)).toEqual({ to: ['+14155550100', '+442079460958'] });
    expect(JSON.stringify(smsKind.publicConfig(config))).not.toContain(AUTH_TOKEN);
  });
});

describe('sms delivery through the Twilio REST API', () => {
  it('posts the summary with both links, form-encoded with Basic auth, and is sent once Twilio queued it', async () => {
    const outcome = await send(smsKind, ['+14155550100']);

    expect(received).toHaveLength(1);
    const [request] = received;
    expect(request).toMatchObject({
      method: 'POST',
      path: `/2010-04-01/Accounts/${ACCOUNT_SID}/Messages.json`,
      authorization: `Basic ${Buffer.from(`${ACCOUNT_SID}:${AUTH_TOKEN}`).toString('base64')}`,
      contentType: 'application/x-www-form-urlencoded',
    });
    expect(request!.form).toEqual({ To: '+14155550100', From: FROM, Body: expect.any(String) });
    expect(request!.form.Body).toBe(
      [
        '[CRITICAL] Checkout fails for card payments',
        'checkout, payments · production · detected',
        'TypeError in PaymentForm since release 2.3.1. 212 errors in 5 minutes.',
        'Dashboard: https://svc.example/incidents/inc_42',
        `Acknowledge: ${ACK_URL}`,
      ].join('\n'),
    );
    expect(outcome).toMatchObject({ state: 'sent', status: 201, providerRef: `SM${'1'.padStart(32, '0')}` });
  });

  it('sends through the messaging service when the account has one', async () => {
    await send(smsKind, ['+14155550100'], { integrations: account({ messaging_service_sid: SERVICE_SID }) });
    expect(received[0]!.form).toMatchObject({ MessagingServiceSid: SERVICE_SID });
    expect(received[0]!.form.From).toBeUndefined();
  });

  it('cuts a long root cause to fit 1,600 characters but never the links', async () => {
    const cause = 'Connection pool exhausted while the payment provider timed out again. '.repeat(80);
    await send(smsKind, ['+14155550100'], { notice: notice({ root_cause_summary: cause }) });

    const body = received[0]!.form.Body!;
    expect(body.length).toBeLessThanOrEqual(SMS_MAX_CHARACTERS);
    expect(body.length).toBeGreaterThan(SMS_MAX_CHARACTERS - 10);
    expect(body).toMatch(/…\nDashboard: https:\/\/svc\.example\/incidents\/inc_42\nAcknowledge: \S+$/);
    expect(body.endsWith(`Acknowledge: ${ACK_URL}`)).toBe(true);
  });

  it('leaves the acknowledge link out once the incident is resolved', async () => {
    await send(smsKind, ['+14155550100'], { notice: { ...notice({ event: 'incident.resolved' }, 'resolved') } });
    const body = received[0]!.form.Body!;
    expect(body.startsWith('[CRITICAL] Resolved: Checkout fails for card payments\n')).toBe(true);
    expect(body).not.toContain('Acknowledge');
  });

  it('fails as provider_<code> when Twilio refuses a number, after the other numbers got their SMS', async () => {
    scripted.set('+15005550001', [
      {
        status: 400,
        body: { code: 21211, message: "The 'To' number +15005550001 is not a valid phone number.", status: 400 },
      },
    ]);
    const outcome = await send(smsKind, ['+14155550100', '+15005550001']);

    expect(received.map((request) => request.form.To).sort()).toEqual(['+14155550100', '+15005550001']);
    expect(outcome).toMatchObject({ state: 'failed', status: 400, errorClass: 'provider_21211' });
    expect(outcome.state === 'failed' && outcome.message).toBe(
      "1 of 2 accepted; +15005550001 refused: The 'To' number +15005550001 is not a valid phone number.",
    );
  });

  it('fails with bad credentials, which no retry fixes', async () => {
    const integrations = account({ auth_token: 'wrong' });
    expect(await send(smsKind, ['+14155550100'], { integrations })).toMatchObject({
      state: 'failed',
      status: 401,
      errorClass: 'provider_20003',
    });
  });

  it('retries only the numbers not yet accepted, honouring Retry-After, so nobody gets the SMS twice', async () => {
    scripted.set('+14155550101', [
      {
        status: 429,
        body: { code: 20429, message: 'Too Many Requests', status: 429 },
        headers: { 'retry-after': '30' },
      },
    ]);
    scripted.set('+14155550102', [{ status: 503, body: { message: 'Service Unavailable' } }]);
    const thread = memory();
    const numbers = ['+14155550100', '+14155550101', '+14155550102'];

    const first = await send(smsKind, numbers, { thread });
    expect(first).toMatchObject({ state: 'retry', status: 429, errorClass: 'http_429', retryAfterMs: 30_000 });
    expect(first.state === 'retry' && first.message).toBe('1 of 3 accepted; +14155550101: Too Many Requests');
    expect(received).toHaveLength(3);

    const second = await send(smsKind, numbers, { thread, attempt: 2 });
    expect(
      received
        .slice(3)
        .map((request) => request.form.To)
        .sort(),
    ).toEqual(['+14155550101', '+14155550102']);
    expect(second).toMatchObject({ state: 'sent', status: 201 });
    expect(second.state === 'sent' && second.providerRef?.split(' ')).toHaveLength(3);
  });

  it('fails without a request when the telephony account was disconnected after the channel was created', async () => {
    const { config } = await smsKind.parse({ to: ['+14155550100'] }, { integrations: account() });
    const outcome = await smsKind.send({
      config,
      secrets: {},
      notice: notice(),
      deliveryId: 'dlv_2',
      attempt: 1,
      http,
      clock,
      thread: memory(),
      integrations: noAccount,
    });
    expect(outcome).toMatchObject({ state: 'failed', errorClass: 'telephony_not_connected' });
    expect(received).toHaveLength(0);
  });

  it('retries when Twilio cannot be reached, and refuses a private address unless allowed', async () => {
    const closed = await serveLocally(() => undefined);
    await closed.close();
    const unreachable = account({ api_base_url: closed.origin });
    expect(await send(smsKind, ['+14155550100'], { integrations: unreachable })).toMatchObject({
      state: 'retry',
      errorClass: 'connect',
    });

    const { config } = await smsKind.parse({ to: ['+14155550100'] }, { integrations: account() });
    const guarded = createGuardedHttp({ allowPrivateTargets: false });
    const outcome = await smsKind.send({
      config,
      secrets: {},
      notice: notice(),
      deliveryId: 'dlv_3',
      attempt: 1,
      http: guarded,
      clock,
      thread: memory(),
      integrations: account(),
    });
    expect(outcome).toMatchObject({ state: 'failed', errorClass: 'ssrf_blocked' });
    expect(received).toHaveLength(0);
  });
});

describe('voice delivery through the Twilio REST API', () => {
  it('places a call that reads the summary and takes "press 1" to the acknowledge link', async () => {
    const outcome = await send(voiceKind, ['+14155550100']);

    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({
      path: `/2010-04-01/Accounts/${ACCOUNT_SID}/Calls.json`,
      form: { To: '+14155550100', From: FROM },
    });
    const twiml = received[0]!.form.Twiml!;
    expect(twiml).toMatch(
      /^<Response><Gather numDigits="1" action="[^"]+" method="POST"><Say>[^<]+<\/Say><\/Gather><Say>[^<]+<\/Say><\/Response>$/,
    );
    const { said, action } = readTwiml(twiml);
    expect(action).toBe(ACK_URL.replace(/&/g, '&amp;'));
    expect(said[0]).toBe(
      'This is s v c. New critical incident: Checkout fails for card payments. Services: checkout and payments. Environment: production. ' +
        'TypeError in PaymentForm since release 2.3.1. 212 errors in 5 minutes. Press 1 to acknowledge.',
    );
    expect(said[1]).toBe('No key was pressed. The incident stays open. Goodbye.');
    expect(outcome).toMatchObject({ state: 'sent', status: 201, providerRef: `CA${'1'.padStart(32, '0')}` });
  });

  it('keeps a complex incident within a minute of speech and 4,000 characters, pointing to the dashboard', async () => {
    const sentence = (i: number) =>
      `Step ${i}: the <PaymentForm> & "CardField" components call /api/orders/${'x'.repeat(30)} with user_id=undefined.`;
    const cause = Array.from({ length: 120 }, (_, i) => sentence(i)).join(' ');
    await send(voiceKind, ['+14155550100'], {
      notice: notice({ root_cause_summary: cause, services: ['checkout', 'payments', 'cart', 'search', 'auth'] }),
    });

    const twiml = received[0]!.form.Twiml!;
    expect(twiml.length).toBeLessThan(TWIML_MAX_CHARACTERS);
    const { said } = readTwiml(twiml);
    expect(countWords(said.join(' '))).toBeLessThanOrEqual(SPEECH_MAX_WORDS);
    expect(countWords(said.join(' '))).toBeGreaterThan(SPEECH_MAX_WORDS - 15);
    expect(said[0]).toContain('Services: checkout, payments, cart and 2 more.');
    // Cut after a whole sentence, then the pointer and the prompt.
    expect(said[0]).toMatch(/undefined\. More details are on the dashboard\. Press 1 to acknowledge\.$/);
    expect(twiml).not.toMatch(/<PaymentForm|"CardField"/);
  });

  it('stays under 4,000 characters when the words themselves are long', async () => {
    // Apostrophes are spoken (can't) and grow sixfold when escaped: 150 such words would be far over the cap.
    const cause = Array.from({ length: 200 }, () => `${"'".repeat(38)}ok`).join(' ');
    await send(voiceKind, ['+14155550100'], {
      notice: notice({ root_cause_summary: cause, title: `Über & ${'ä'.repeat(30)}` }),
    });
    const twiml = received[0]!.form.Twiml!;
    expect(twiml.length).toBeLessThan(TWIML_MAX_CHARACTERS);
    expect(twiml).toContain('More details are on the dashboard.');
  });

  it('only reads the news once the incident is resolved', async () => {
    await send(voiceKind, ['+14155550100'], { notice: notice({ event: 'incident.resolved' }, 'resolved') });
    const twiml = received[0]!.form.Twiml!;
    expect(twiml).not.toContain('<Gather');
    expect(readTwiml(twiml).said).toEqual([
      expect.stringContaining('Resolved critical incident: Checkout fails for card payments.'),
    ]);
    expect(twiml).not.toContain('Press 1');
  });
});
