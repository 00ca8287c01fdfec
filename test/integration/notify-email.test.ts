import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Clock } from '../../server/src/clock';
import { createGuardedHttp } from '../../server/src/notify/http/guarded-http';
import { createEmailKind } from '../../server/src/notify/kinds/email/kind';
import type { EmailConfig, EmailSecrets } from '../../server/src/notify/kinds/email/config';
import type { IncidentNotice, SendContext } from '../../server/src/notify/kinds/types';
import { startMailbox, type Delivered, type Mailbox } from '../support/mailbox';
import { incidentNotice } from '../support/notice';
import { refusalFrom } from '../support/refusal';

const PASSWORD = 'smtp-secret-0bb2';
const ACK_URL = 'https://svc.example/n/ack?incident=inc_7&sig=a1b2';
const RESOLVE_URL = 'https://svc.example/n/resolve?incident=inc_7&sig=c3d4';
const TITLE = 'Checkout <b>fails</b> & "cart" is empty';
const CAUSE = "TypeError: Cannot read properties of undefined (reading 'id')\n  at <CartSummary> in cart.tsx:42";

const clock: Clock = { now: () => 1_700_000_000_000 };
const kind = createEmailKind({ allowPrivateTargets: true });

/** A real SMTP server: takes mail for anyone but a few addresses that answer as broken mailboxes do. */
let smtp: Mailbox;
const REFUSED: Record<string, number> = { 'nobody@example.com': 550, 'greylisted@example.com': 451 };

beforeAll(async () => {
  smtp = await startMailbox({ refused: REFUSED });
});
afterAll(() => smtp.close());
beforeEach(() => {
  smtp.inbox.length = 0;
  smtp.logins.length = 0;
});

function notice(
  event: IncidentNotice['payload']['event'] = 'incident.created',
  status: IncidentNotice['status'] = 'detected',
): IncidentNotice {
  return incidentNotice({
    payload: {
      event,
      incident_id: 'inc_7',
      title: TITLE,
      services: ['checkout', 'cart'],
      root_cause_summary: CAUSE,
      dashboard_url: 'https://svc.example/incidents/inc_7',
    },
    status,
    detected_at: '2023-11-14T22:13:20.000Z',
    acknowledge_url: ACK_URL,
    resolve_url: RESOLVE_URL,
  });
}

function channel(to: string[], smtpChanges: Record<string, unknown> = {}) {
  return {
    to,
    from: 'alerts@svc.example',
    smtp: { host: '127.0.0.1', port: smtp.port, secure: false, user: 'alerts', password: PASSWORD, ...smtpChanges },
  };
}

async function send(
  input: ReturnType<typeof channel>,
  options: { notice?: IncidentNotice; emailKind?: typeof kind } = {},
) {
  const { config, secrets } = await kind.parse(input, { integrations: { get: async () => undefined } });
  const context: SendContext<EmailConfig, EmailSecrets> = {
    config,
    secrets,
    notice: options.notice ?? notice(),
    deliveryId: 'dlv_9f3',
    attempt: 1,
    http: createGuardedHttp({ allowPrivateTargets: true }),
    clock,
    thread: { get: async () => undefined, set: async () => undefined },
    integrations: { get: async () => undefined },
  };
  return (options.emailKind ?? kind).send(context);
}

describe('email config', () => {
  const parse = (config: unknown) => kind.parse(config, { integrations: { get: async () => undefined } });

  it('keeps the SMTP password out of the config the API shows', async () => {
    const { config, secrets } = await parse(channel(['oncall@example.com']));
    expect(secrets).toEqual({ smtp_password: PASSWORD });
    const shown = kind.publicConfig(config);
    expect(shown).toEqual({
      to: ['oncall@example.com'],
      from: 'alerts@svc.example',
      smtp: { host: '127.0.0.1', port: smtp.port, secure: false, user: 'alerts', require_tls: false },
    });
    expect(JSON.stringify(shown)).not.toContain(PASSWORD);
  });

  it('defaults to port 587 with STARTTLS, and to TLS from the start on 465', async () => {
    const base = { to: ['oncall@example.com'], from: 'alerts@svc.example' };
    expect((await parse({ ...base, smtp: { host: 'SMTP.Example.com' } })).config.smtp).toEqual({
      host: 'smtp.example.com',
      port: 587,
      secure: false,
      user: null,
      require_tls: false,
    });
    expect((await parse({ ...base, smtp: { host: 'smtp.example.com', port: 465 } })).config.smtp).toMatchObject({
      port: 465,
      secure: true,
    });
  });

  it.each([
    [{ to: [] }, 'config.to'],
    [{ to: Array.from({ length: 51 }, (_, i) => `p${i}@example.com`) }, 'config.to'],
    [{ to: ['oncall@example.com', 'ops@example.com', 'not an address'] }, 'config.to[2]'],
    [{ to: ['oncall@example.com', 'OnCall@example.com'] }, 'config.to[1]'],
    [{ from: 'Alerts <alerts@svc.example>' }, 'config.from'],
    [{ smtp: undefined }, 'config.smtp'],
    [{ smtp: { host: 'smtp example.com' } }, 'config.smtp.host'],
    [{ smtp: { host: 'smtp.example.com', port: 70000 } }, 'config.smtp.port'],
    [{ smtp: { host: 'smtp.example.com', secure: 'yes' } }, 'config.smtp.secure'],
    [{ smtp: { host: 'smtp.example.com', require_tls: 1 } }, 'config.smtp.require_tls'],
    [{ smtp: { host: 'smtp.example.com', user: 'alerts' } }, 'config.smtp.password'],
    [{ smtp: { host: 'smtp.example.com', password: PASSWORD } }, 'config.smtp.user'],
  ])('refuses %j with a 400 naming %s', async (change, field) => {
    const config = {
      to: ['oncall@example.com'],
      from: 'alerts@svc.example',
      smtp: { host: 'smtp.example.com' },
      ...change,
    };
    expect(await refusalFrom(() => parse(config))).toMatchObject({ status: 400, details: { field } });
  });
});

describe('email delivery over SMTP', () => {
  it('sends the incident report as text and escaped HTML, with the links, and is sent on 250', async () => {
    const outcome = await send(channel(['oncall@example.com', 'ops@example.com']));

    expect(outcome).toMatchObject({ state: 'sent', status: 250, providerRef: '<dlv_9f3@svc.example>' });
    expect(smtp.logins).toEqual([{ username: 'alerts', password: PASSWORD }]);
    expect(smtp.inbox).toHaveLength(1);
    const [{ mail, recipients }] = smtp.inbox as [Delivered];
    expect(recipients).toEqual(['oncall@example.com', 'ops@example.com']);
    expect(mail.subject).toBe(`[CRITICAL] ${TITLE}`);
    expect(mail.from?.text).toBe('alerts@svc.example');
    expect(mail.messageId).toBe('<dlv_9f3@svc.example>');
    expect(mail.headers.get('auto-submitted')).toBe('auto-generated');

    expect(mail.text).toContain(TITLE);
    expect(mail.text).toContain(
      'Severity:    critical\nStatus:      detected\nServices:    checkout, cart\nEnvironment: production',
    );
    expect(mail.text).toContain(`Root cause\n${CAUSE}\n`);
    expect(mail.text).toContain(
      `Open the dashboard: https://svc.example/incidents/inc_7\nAcknowledge: ${ACK_URL}\nResolve: ${RESOLVE_URL}`,
    );

    const html = mail.html as string;
    expect(html).toMatch(/^<!doctype html>\n<html lang="en">/);
    expect(html).toContain('Checkout &lt;b&gt;fails&lt;/b&gt; &amp; &quot;cart&quot; is empty');
    expect(html).not.toContain('<b>fails</b>');
    expect(html).toContain('at &lt;CartSummary&gt; in cart.tsx:42');
    expect(html).not.toContain('<CartSummary>');
    expect(html).toContain('href="https://svc.example/incidents/inc_7"');
    expect(html).toContain(`href="${ACK_URL.replace(/&/g, '&amp;')}"`);
    expect(html).toContain(`href="${RESOLVE_URL.replace(/&/g, '&amp;')}"`);
    expect(html).toMatch(/>CRITICAL<\/span>/);
  });

  it('names the event in the subject and drops the links that no longer apply', async () => {
    await send(channel(['oncall@example.com']), { notice: notice('incident.resolved', 'resolved') });
    const { mail } = smtp.inbox[0]!;
    expect(mail.subject).toBe(`[CRITICAL] Resolved: ${TITLE}`);
    expect(mail.text).toContain('Status:      resolved');
    expect(mail.text).not.toContain('Acknowledge');
    expect(mail.text).not.toContain('Resolve:');
    expect(mail.html).toContain('Open the dashboard');
  });

  it('fails on a 5xx reply: a mailbox that does not exist will not appear on retry', async () => {
    const outcome = await send(channel(['nobody@example.com']));
    expect(outcome).toMatchObject({ state: 'failed', status: 550, errorClass: 'smtp_5xx' });
    expect(smtp.inbox).toHaveLength(0);
  });

  it('retries on a 4xx reply', async () => {
    const outcome = await send(channel(['greylisted@example.com']));
    expect(outcome).toMatchObject({ state: 'retry', status: 451, errorClass: 'smtp_4xx' });
    expect(smtp.inbox).toHaveLength(0);
  });

  it('fails naming the refused recipient when the others got the mail, instead of sending it to them twice', async () => {
    const outcome = await send(channel(['oncall@example.com', 'nobody@example.com']));
    expect(outcome).toMatchObject({
      state: 'failed',
      status: 550,
      errorClass: 'smtp_5xx',
      message: '1 of 2 recipients accepted; refused: nobody@example.com',
    });
    expect(smtp.inbox.map((entry) => entry.recipients)).toEqual([['oncall@example.com']]);
  });

  it('retries when the server cannot be reached', async () => {
    const closed = await startMailbox();
    await closed.close();
    expect(await send(channel(['oncall@example.com'], { port: closed.port }))).toMatchObject({
      state: 'retry',
      errorClass: 'connect',
    });
  });

  it('refuses a mail server on a private address unless private targets are allowed', async () => {
    const guarded = createEmailKind({ allowPrivateTargets: false });
    // The message says how a local set-up allows it.
    const refused = {
      state: 'failed',
      errorClass: 'ssrf_blocked',
      message: expect.stringContaining('SVC_ALLOW_PRIVATE_TARGETS=true (or --allow-private-targets true)'),
    };
    expect(await send(channel(['oncall@example.com'], { host: 'localhost' }), { emailKind: guarded })).toMatchObject(
      refused,
    );
    expect(await send(channel(['oncall@example.com']), { emailKind: guarded })).toMatchObject(refused);
    expect(smtp.inbox).toHaveLength(0);
  });
});
