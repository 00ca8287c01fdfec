import { describe, expect, it } from 'vitest';
import { redactForAudit } from '../../server/src/audit/redact';
import { targetOf } from '../../server/src/audit/target';
import { providerKinds } from '../../server/src/cost/sources/registry';
import { parseEmailConfig } from '../../server/src/notify/kinds/email/config';
import { parseTelephonyIntegration } from '../../server/src/notify/kinds/telephony/account';

/** Every string a parsed `secrets` object holds, at any depth. */
const strings = (value: unknown): string[] =>
  typeof value === 'string'
    ? [value]
    : value !== null && typeof value === 'object'
      ? Object.values(value).flatMap(strings)
      : [];

/** The audit log keeps no value the server seals: each kind's own parser says which those are. */
const sealedBy: Array<[string, { secrets: unknown }, unknown]> = (() => {
  const email = {
    to: ['ops@example.com'],
    from: 'svc@example.com',
    smtp: { host: 'smtp.example.com', user: 'svc', password: 'Pa55-word!x' },
  };
  const aws = {
    role_arn: 'arn:aws:iam::123456789012:role/svc-cost',
    external_id: 'ext-77',
    cur_bucket: 'billing-exports',
    cur_prefix: 'cur/',
  };
  const azure = {
    scope: '/subscriptions/00000000-0000-0000-0000-000000000000',
    tenant_id: '11111111-1111-1111-1111-111111111111',
    client_id: '22222222-2222-2222-2222-222222222222',
    client_secret: 'azure~secret.value_123',
  };
  const telephony = { account_sid: `AC${'0'.repeat(32)}`, auth_token: 'tw-token-1', from: '+15550100000' };
  const kinds = providerKinds();
  return [
    ['email channel', parseEmailConfig(email), { type: 'email', config: email }],
    ['aws connection', kinds.aws.parse(aws), { provider: 'aws', config: aws }],
    ['azure connection', kinds.azure.parse(azure), { provider: 'azure', config: azure }],
    ['telephony integration', parseTelephonyIntegration(telephony), telephony],
  ];
})();

describe('audit redaction', () => {
  it.each(sealedBy)('%s: no sealed value is kept', (_name, parsed, body) => {
    const kept = JSON.stringify(redactForAudit(body));
    const sealed = strings(parsed.secrets);
    expect(sealed.length).toBeGreaterThan(0);
    for (const secret of sealed) expect(kept).not.toContain(secret);
  });

  it('secret names, credentials by value and URLs past their origin are replaced; the rest is kept', () => {
    expect(
      redactForAudit({
        name: 'on-call',
        config: { webhook_url: 'https://hooks.slack.com/services/T0/B0/abc', url: 'https://example.com/h?token=x' },
        key: 'anything',
        private_key: '-----BEGIN RSA PRIVATE KEY-----',
        note: 'Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl',
        email: 'ada@example.com',
        home: 'https://example.com/',
        count: 3,
      }),
    ).toEqual({
      name: 'on-call',
      config: { webhook_url: '[REDACTED]', url: 'https://example.com/[REDACTED]' },
      key: '[REDACTED]',
      private_key: '[REDACTED]',
      note: '[REDACTED]',
      email: 'ada@example.com',
      home: 'https://example.com',
      count: 3,
    });
  });
});

describe('audit target', () => {
  it.each([
    ['PATCH /control-plane/issues/{id}', { id: 'f1' }, undefined, { type: 'issue', id: 'f1' }],
    ['POST /control-plane/projects/{id}/keys', { id: 'p1' }, 'k1', { type: 'key', id: 'k1' }],
    ['PUT /control-plane/apps/{app}/repository', { app: 'web' }, undefined, { type: 'repository', id: 'web' }],
    [
      'POST /control-plane/notifications/{channelId}/test',
      { channelId: 'c1' },
      undefined,
      { type: 'channel', id: 'c1' },
    ],
    ['PUT /control-plane/integrations/telephony', {}, undefined, { type: 'integration', id: 'telephony' }],
    ['DELETE /control-plane/members/{user_id}/sessions', { user_id: 'u1' }, undefined, { type: 'member', id: 'u1' }],
    ['PUT /control-plane/notifications/rules/order', {}, undefined, null],
    ['PATCH /control-plane/issues', {}, undefined, null],
  ] as const)('%s', (operation, params, created, want) => {
    expect(targetOf(operation, params, created)).toEqual(want);
  });
});
