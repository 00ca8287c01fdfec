import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One AssumeRole request as STS received it (form fields of the Query protocol, and who signed it). */
export interface AssumeRoleCall {
  roleArn: string;
  roleSessionName: string;
  durationSeconds: number;
  externalId: string | null;
  /** Access key id from the SigV4 `Authorization` header: the caller's base credentials. */
  signedBy: string | null;
}

export interface FakeSts {
  url: string;
  calls: AssumeRoleCall[];
  /** Roles whose AssumeRole is refused with STS's `AccessDenied` error. */
  denied: Set<string>;
  /** The temporary credentials handed out (s3rver accepts only its own key id, `S3RVER`). */
  credentials: { accessKeyId: string; secretAccessKey: string };
  /** Lifetime of the handed-out session. */
  sessionMs: number;
  close(): Promise<void>;
}

const NS = 'https://sts.amazonaws.com/doc/2011-06-15/';

/**
 * A local STS speaking the Query protocol as AWS does (docs.aws.amazon.com/STS/latest/APIReference/API_AssumeRole.html):
 * a form-encoded POST with `Action=AssumeRole&Version=2011-06-15`, answered with `AssumeRoleResponse` XML, or an
 * `ErrorResponse` (HTTP 403 `AccessDenied`, as STS answers a role whose trust policy refuses the caller).
 */
export async function startFakeSts(): Promise<FakeSts> {
  const sts: FakeSts = {
    url: '',
    calls: [],
    denied: new Set(),
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    sessionMs: 3600_000,
    close: async () => undefined,
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
      const requestId = randomUUID();
      const reply = (status: number, xml: string) => {
        res.writeHead(status, { 'content-type': 'text/xml', 'x-amzn-requestid': requestId });
        res.end(`<?xml version="1.0" encoding="UTF-8"?>\n${xml}`);
      };
      if (req.method !== 'POST' || form.get('Action') !== 'AssumeRole' || form.get('Version') !== '2011-06-15') {
        reply(
          400,
          errorXml(
            'Sender',
            'InvalidAction',
            `Could not find operation ${form.get('Action')} for version ${form.get('Version')}`,
            requestId,
          ),
        );
        return;
      }
      const roleArn = form.get('RoleArn') ?? '';
      const call: AssumeRoleCall = {
        roleArn,
        roleSessionName: form.get('RoleSessionName') ?? '',
        durationSeconds: Number(form.get('DurationSeconds') ?? 3600),
        externalId: form.get('ExternalId'),
        signedBy: /Credential=([^/]+)\//.exec(req.headers.authorization ?? '')?.[1] ?? null,
      };
      sts.calls.push(call);
      if (sts.denied.has(roleArn)) {
        const message = `User: arn:aws:iam::111122223333:user/svc-server is not authorized to perform: sts:AssumeRole on resource: ${roleArn}`;
        reply(403, errorXml('Sender', 'AccessDenied', message, requestId));
        return;
      }
      const roleName = roleArn.slice(roleArn.lastIndexOf('/') + 1);
      const account = roleArn.split(':')[4] ?? '';
      const expiration = new Date(Date.now() + sts.sessionMs).toISOString().replace(/\.\d{3}Z$/, 'Z');
      reply(
        200,
        `<AssumeRoleResponse xmlns="${NS}">
  <AssumeRoleResult>
    <AssumedRoleUser>
      <AssumedRoleId>AROA3XFRBF535PLBIFPI4:${escapeXml(call.roleSessionName)}</AssumedRoleId>
      <Arn>arn:aws:sts::${account}:assumed-role/${escapeXml(roleName)}/${escapeXml(call.roleSessionName)}</Arn>
    </AssumedRoleUser>
    <Credentials>
      <AccessKeyId>${sts.credentials.accessKeyId}</AccessKeyId>
      <SecretAccessKey>${sts.credentials.secretAccessKey}</SecretAccessKey>
      <SessionToken>FwoGZXIvYXdzEBYaD${randomUUID().replaceAll('-', '')}</SessionToken>
      <Expiration>${expiration}</Expiration>
    </Credentials>
  </AssumeRoleResult>
  <ResponseMetadata>
    <RequestId>${requestId}</RequestId>
  </ResponseMetadata>
</AssumeRoleResponse>`,
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  sts.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  sts.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return sts;
}

function errorXml(type: string, code: string, message: string, requestId: string): string {
  return `<ErrorResponse xmlns="${NS}">
  <Error>
    <Type>${type}</Type>
    <Code>${code}</Code>
    <Message>${escapeXml(message)}</Message>
  </Error>
  <RequestId>${requestId}</RequestId>
</ErrorResponse>`;
}

function escapeXml(s: string): string {
  return s.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);
}
