import { PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refusalOf } from '../../server/src/http/errors';
import type { CostLineItem } from '../../server/src/cost/model';
import { awsProvider } from '../../server/src/cost/sources/aws/index';
import { putDataExport, putLegacyCur, putLegacyCurParquet, type ExportTarget } from '../support/cost/aws-exports';
import { startFakeSts, type FakeSts } from '../support/cost/fake-sts';
import type { SampleLineItem } from '../support/cost/report-files';
import { startLocalS3, type LocalS3 } from '../support/cost/s3';

/**
 * The AWS billing source end to end through the official SDK: STS AssumeRole against a local STS speaking the Query/XML
 * wire format, then S3 reads against s3rver holding report files laid out exactly as AWS delivers them (legacy CUR with
 * manifests and assemblies, its Athena Parquet layout, CUR 2.0 and FOCUS Data Exports; gzip CSV and Parquet). s3rver
 * accepts only its own key id, which only the assumed role's credentials carry, so every S3 read proves the role was used.
 */
const ROLE = 'arn:aws:iam::444455556666:role/billing/svc-cost-read';
const PERIOD = '2024-03';
const DAY = (d: number) => Date.UTC(2024, 2, d);

/** Three line items of March 2024: two resources and a tax line; billed 1.25 + 2.5 + 0.75 = 4.5. */
const MARCH: SampleLineItem[] = [
  {
    day: '2024-03-01',
    resourceId: 'i-0a1b2c3d4e5f60718',
    resourceName: 'web-1',
    productCode: 'AmazonEC2',
    productFamily: 'Compute Instance',
    usageType: 'BoxUsage:m5.large',
    region: 'us-east-1',
    accountId: '444455556666',
    type: 'Usage',
    unblendedCost: 1.25,
    tags: { team: 'payments' },
  },
  {
    day: '2024-03-02',
    resourceId: 'arn:aws:s3:::svc-assets',
    productCode: 'AmazonS3',
    productFamily: 'Storage',
    usageType: 'TimedStorage-ByteHrs',
    region: 'eu-west-1',
    accountId: '444455556666',
    type: 'Usage',
    unblendedCost: 2.5,
    tags: { team: 'data' },
  },
  {
    day: '2024-03-02',
    resourceId: null,
    productCode: 'AmazonEC2',
    region: null,
    accountId: '444455556666',
    type: 'Tax',
    unblendedCost: 0.75,
  },
];

/** What a reader must make of MARCH whatever the format: the columns every format carries, hand-written. */
const EXPECTED = [
  {
    start: DAY(1),
    billed: 1.25,
    effective: 1.25,
    resourceId: 'i-0a1b2c3d4e5f60718',
    region: 'us-east-1',
    charge: 'Usage',
    team: 'payments',
  },
  { start: DAY(2), billed: 0.75, effective: 0.75, resourceId: null, region: null, charge: 'Tax', team: undefined },
  {
    start: DAY(2),
    billed: 2.5,
    effective: 2.5,
    resourceId: 'arn:aws:s3:::svc-assets',
    region: 'eu-west-1',
    charge: 'Usage',
    team: 'data',
  },
];

/** An earlier delivery of the same period, with other costs: reading it too (or instead) shows in every total. */
const STALE: SampleLineItem[] = [
  { ...MARCH[0]!, unblendedCost: 100 },
  { ...MARCH[1]!, unblendedCost: 200 },
];

function summary(items: CostLineItem[]) {
  return items
    .map((i) => ({
      start: i.chargePeriodStartMs,
      billed: i.billedCost,
      effective: i.effectiveCost,
      resourceId: i.resourceId,
      region: i.region,
      charge: i.chargeCategory,
      team: i.tags.team,
    }))
    .sort((a, b) => a.start - b.start || a.billed - b.billed);
}

describe('AWS billing source (STS + S3)', () => {
  let s3: LocalS3;
  let sts: FakeSts;
  const env = () => ({ endpoints: { s3: s3.endpoint, sts: sts.url }, log: () => undefined });
  let buckets = 0;

  /** A fresh bucket per case, so each layout is alone under its prefix unless a case says otherwise. */
  const bucket = async (prefix = 'billing/'): Promise<ExportTarget> => {
    const name = `cur-reports-${++buckets}`;
    await s3.createBucket(name);
    return { s3: s3.admin, bucket: name, prefix };
  };

  /** Every line item the source yields for `period`; whatever happens, it must have sent S3 only GETs and HEADs. */
  const read = async (target: ExportTarget, period = PERIOD, extra: Record<string, unknown> = {}) => {
    const { config, secrets } = awsProvider.parse({
      role_arn: ROLE,
      cur_bucket: target.bucket,
      cur_prefix: target.prefix,
      ...extra,
    });
    const from = s3.requests.length;
    try {
      const items: CostLineItem[] = [];
      for await (const batch of awsProvider.source(config, secrets, env()).read(period, new AbortController().signal))
        items.push(...batch);
      return items;
    } finally {
      expect(s3.requests.slice(from).filter((r) => r.method !== 'GET' && r.method !== 'HEAD')).toEqual([]);
    }
  };

  /** The keys GetObject fetched (whole or ranged) since `from` requests ago. */
  const fetched = (bucketName: string, from: number) =>
    new Set(
      s3.requests
        .slice(from)
        .filter((r) => r.method === 'GET' && !('list-type' in r.query))
        .map((r) => r.path.slice(bucketName.length + 2)),
    );

  beforeAll(async () => {
    // The SDK's default chain finds these base credentials first (and never probes instance metadata).
    process.env.AWS_ACCESS_KEY_ID = 'AKIABASECREDENTIALS1';
    process.env.AWS_SECRET_ACCESS_KEY = 'base-secret';
    process.env.AWS_EC2_METADATA_DISABLED = 'true';
    [s3, sts] = await Promise.all([startLocalS3(), startFakeSts()]);
  });
  afterAll(async () => {
    await Promise.all([s3?.close(), sts?.close()]);
  });

  describe('layouts', () => {
    it('legacy CUR, gzip CSV kept in versions: reads only the assembly the period manifest names, all of its files', async () => {
      const target = await bucket();
      const { assemblies } = await putLegacyCur(target, {
        name: 'hourly-cur',
        period: PERIOD,
        // The stale assembly came first; the current one is split in two files as AWS splits large reports.
        assemblies: [[STALE], [MARCH.slice(0, 2), MARCH.slice(2)]],
      });
      const from = s3.requests.length;

      expect(summary(await read(target))).toEqual(EXPECTED);
      const got = fetched(target.bucket, from);
      expect([...assemblies[1]!.keys].every((k) => got.has(k))).toBe(true);
      expect(assemblies[0]!.keys.some((k) => got.has(k))).toBe(false);
    });

    it('legacy CUR in Parquet (Athena layout): read by ranged GETs, the crawler and status files left alone', async () => {
      const target = await bucket();
      const { keys } = await putLegacyCurParquet(target, { name: 'athena-cur', period: PERIOD, files: [MARCH] });
      const from = s3.requests.length;

      expect(summary(await read(target))).toEqual(EXPECTED);
      const requests = s3.requests.slice(from);
      expect(requests.some((r) => r.method === 'HEAD' && r.path.endsWith(keys[0]!))).toBe(true);
      const dataGets = requests.filter((r) => r.method === 'GET' && r.path.endsWith(keys[0]!));
      expect(dataGets.length).toBeGreaterThan(0);
      expect(dataGets.every((r) => r.range !== null && /^bytes=\d+-\d+$/.test(r.range))).toBe(true);
      expect(
        [...fetched(target.bucket, from)].filter((k) => /cost_and_usage_data_status|crawler-cfn|create-table/.test(k)),
      ).toEqual([]);
    });

    for (const format of ['cur2', 'focus'] as const) {
      for (const encoding of ['csv-gzip', 'parquet'] as const) {
        it(`${format === 'cur2' ? 'CUR 2.0' : 'FOCUS 1.0'} Data Export, ${encoding}: the files the metadata manifest lists`, async () => {
          const target = await bucket('exports/');
          const { keys } = await putDataExport(target, {
            name: `${format}-daily`,
            period: PERIOD,
            format,
            encoding,
            files: [MARCH.slice(0, 1), MARCH.slice(1)],
          });
          // A refresh in progress: a file of the next delivery is written before its manifest replaces the old one.
          const ext = encoding === 'parquet' ? 'snappy.parquet' : 'csv.gz';
          const stray = `exports/${format}-daily/data/BILLING_PERIOD=${PERIOD}/${format}-daily-00003.${ext}`;
          await s3.admin.send(new PutObjectCommand({ Bucket: target.bucket, Key: stray, Body: 'not yet complete' }));
          const from = s3.requests.length;

          expect(summary(await read(target))).toEqual(EXPECTED);
          const got = fetched(target.bucket, from);
          expect(keys.every((k) => got.has(k))).toBe(true);
          expect(got.has(stray)).toBe(false);
        });
      }
    }

    it('Data Export delivered as new versions without metadata: the newest delivery only', async () => {
      const target = await bucket('');
      const common = {
        name: 'focus-export',
        period: PERIOD,
        format: 'focus' as const,
        encoding: 'csv-gzip' as const,
        delivery: 'create-new' as const,
        manifest: false,
      };
      const old = await putDataExport(target, { ...common, files: [STALE], at: new Date('2024-03-02T06:00:00Z') });
      // A millisecond apart at least, so the newest is newest by S3's LastModified too.
      await new Promise((resolve) => setTimeout(resolve, 5));
      const current = await putDataExport(target, { ...common, files: [MARCH], at: new Date('2024-03-03T06:00:00Z') });
      const from = s3.requests.length;

      // The prefix is the bucket root here: the export is found as the one folder under it.
      expect(summary(await read(target))).toEqual(EXPECTED);
      const got = fetched(target.bucket, from);
      expect(got.has(current.keys[0]!)).toBe(true);
      expect(got.has(old.keys[0]!)).toBe(false);
    });

    it('a period without data yields nothing', async () => {
      const target = await bucket();
      await putLegacyCur(target, { name: 'hourly-cur', period: PERIOD, assemblies: [[MARCH]] });
      await putDataExport(
        { ...target, prefix: 'exports/' },
        { name: 'cur2', period: PERIOD, format: 'cur2', encoding: 'parquet', files: [MARCH] },
      );

      expect(await read(target, '2024-02')).toEqual([]);
      expect(await read({ ...target, prefix: 'exports/' }, '2024-04')).toEqual([]);
      expect(await read({ ...target, prefix: 'nothing-here/' })).toEqual([]);
    });

    it('several reports under one prefix: the one with data for the period, an error naming them when several have', async () => {
      const target = await bucket();
      await putLegacyCur(target, { name: 'legacy-cur', period: PERIOD, assemblies: [[MARCH]] });
      await putDataExport(target, {
        name: 'cur2-export',
        period: '2024-04',
        format: 'cur2',
        encoding: 'csv-gzip',
        files: [STALE.map((r) => ({ ...r, day: '2024-04-01' }))],
      });
      // An unrelated folder in a shared bucket is not a report.
      await s3.admin.send(
        new PutObjectCommand({ Bucket: target.bucket, Key: 'billing/invoices/2024-03.pdf', Body: 'pdf' }),
      );

      expect(summary(await read(target))).toEqual(EXPECTED);
      expect((await read(target, '2024-04')).map((i) => i.billedCost).sort((a, b) => a - b)).toEqual([100, 200]);

      await putDataExport(target, {
        name: 'cur2-export',
        period: PERIOD,
        format: 'cur2',
        encoding: 'csv-gzip',
        files: [MARCH],
      });
      await expect(read(target)).rejects.toThrow(
        `s3://${target.bucket}/billing/ holds 2 reports with data for ${PERIOD}: billing/cur2-export/ (Data Export), billing/legacy-cur/ (legacy CUR). Set config.cur_prefix to the folder of the one to read.`,
      );
      // The way out the error names: the report's own folder as the prefix.
      expect(summary(await read({ ...target, prefix: 'billing/legacy-cur/' }))).toEqual(EXPECTED);
    });
  });

  describe('access', () => {
    it('assumes the configured role with the external id, signed by the base credentials, once for a whole read', async () => {
      const target = await bucket();
      await putDataExport(target, {
        name: 'cur2',
        period: PERIOD,
        format: 'cur2',
        encoding: 'parquet',
        files: [MARCH],
      });
      const calls = sts.calls.length;
      const from = s3.requests.length;

      expect(summary(await read(target, PERIOD, { external_id: 'svc-tenant-7f3a' }))).toEqual(EXPECTED);
      expect(sts.calls.slice(calls)).toEqual([
        {
          roleArn: ROLE,
          roleSessionName: 'svc-cost-sync',
          durationSeconds: 3600,
          externalId: 'svc-tenant-7f3a',
          signedBy: 'AKIABASECREDENTIALS1',
        },
      ]);
      // Listing, manifest, HEAD and ranged GETs: all signed with the one session (s3rver knows only its key id).
      expect(s3.requests.length - from).toBeGreaterThan(4);
    });

    it('renews a session about to expire before signing the next request with it', async () => {
      const target = await bucket();
      await putDataExport(target, {
        name: 'cur2',
        period: PERIOD,
        format: 'cur2',
        encoding: 'csv-gzip',
        files: [MARCH],
      });
      sts.sessionMs = 2 * 60_000;
      const calls = sts.calls.length;
      const from = s3.requests.length;
      try {
        expect(summary(await read(target))).toEqual(EXPECTED);
      } finally {
        sts.sessionMs = 3600_000;
      }
      // Within five minutes of expiry a session is not used again: every request got a fresh one.
      expect(sts.calls.length - calls).toBeGreaterThanOrEqual(s3.requests.length - from);
    });

    it('a role that refuses to be assumed: a clear error that does not repeat the role ARN, and no S3 request', async () => {
      const target = await bucket();
      const denied = 'arn:aws:iam::444455556666:role/not-trusting';
      sts.denied.add(denied);
      const from = s3.requests.length;

      const error = await read(target, PERIOD, { role_arn: denied }).then(
        () => null,
        (err: Error) => err,
      );
      expect(error?.message).toMatch(
        /^could not assume config\.role_arn with STS \(AccessDenied: User: arn:aws:iam::111122223333:user\/svc-server is not authorized to perform: sts:AssumeRole on resource: config\.role_arn\): the role's trust policy must allow/,
      );
      expect(error?.message).not.toContain(denied);
      expect(s3.requests.slice(from)).toEqual([]);
    });

    it('credentials S3 refuses: an access-denied error saying which permissions the role needs', async () => {
      const target = await bucket();
      sts.credentials.accessKeyId = 'ASIAUNKNOWNTOS3RVER';
      try {
        await expect(read(target)).rejects.toThrow(
          `access denied: ListObjectsV2 s3://${target.bucket}/billing/. The role in config.role_arn needs s3:ListBucket on the bucket and s3:GetObject on the report prefix`,
        );
      } finally {
        sts.credentials.accessKeyId = 'S3RVER';
      }
    });

    it('a bucket that does not exist: an error naming it', async () => {
      await expect(read({ s3: s3.admin, bucket: 'no-such-cur-bucket', prefix: 'billing/' })).rejects.toThrow(
        'bucket "no-such-cur-bucket" does not exist (config.cur_bucket)',
      );
    });
  });

  describe('config', () => {
    const valid = { role_arn: ROLE, cur_bucket: 'acme-billing', cur_prefix: 'cur/' };
    const rejection = (raw: unknown) => {
      try {
        awsProvider.parse(raw);
      } catch (err) {
        const refused = refusalOf(err);
        if (refused) return { status: refused.status, message: refused.message, details: refused.details };
        throw err;
      }
      return null;
    };

    it('normalizes the prefix and defaults the region; secrets are apart from what is shown', () => {
      const parsed = awsProvider.parse({ ...valid, cur_prefix: '/cur/reports', external_id: 'ext-id:42' });
      expect(parsed).toEqual({
        config: { cur_bucket: 'acme-billing', cur_prefix: 'cur/reports/', region: 'us-east-1' },
        secrets: { role_arn: ROLE, external_id: 'ext-id:42' },
      });
      expect(awsProvider.publicConfig(parsed.config)).toEqual({
        cur_bucket: 'acme-billing',
        cur_prefix: 'cur/reports/',
        region: 'us-east-1',
      });
      expect(JSON.stringify(awsProvider.publicConfig(parsed.config))).not.toMatch(/arn:|ext-id/);

      expect(awsProvider.parse({ ...valid, cur_prefix: '' }).config.cur_prefix).toBe('');
      expect(awsProvider.parse({ ...valid, region: 'eu-central-1' }).config.region).toBe('eu-central-1');
      for (const arn of [
        'arn:aws-cn:iam::123456789012:role/cost',
        'arn:aws-us-gov:iam::123456789012:role/service-role/cost.read@team',
        'arn:aws:iam::123456789012:role/a/b/c/Cost_Reader+1',
      ]) {
        expect(awsProvider.parse({ ...valid, role_arn: arn }).secrets.role_arn).toBe(arn);
      }
    });

    it('names each bad field', () => {
      const cases: [Record<string, unknown> | unknown, string, RegExp][] = [
        ['not an object', 'config', /config must be an object/],
        [{ cur_bucket: 'acme-billing', cur_prefix: 'cur/' }, 'config.role_arn', /config\.role_arn is required/],
        [{ ...valid, role_arn: 42 }, 'config.role_arn', /must be a string/],
        [{ ...valid, role_arn: 'arn:aws:iam::123456789012:user/alice' }, 'config.role_arn', /must be an IAM role ARN/],
        [{ ...valid, role_arn: 'arn:aws:iam::12345:role/cost' }, 'config.role_arn', /must be an IAM role ARN/],
        [{ ...valid, role_arn: 'arn:aws:s3:::acme-billing' }, 'config.role_arn', /must be an IAM role ARN/],
        [
          { ...valid, role_arn: `arn:aws:iam::123456789012:role/${'r'.repeat(65)}` },
          'config.role_arn',
          /must be an IAM role ARN/,
        ],
        [{ role_arn: ROLE, cur_prefix: 'cur/' }, 'config.cur_bucket', /config\.cur_bucket is required/],
        [{ role_arn: ROLE, cur_bucket: 'acme-billing' }, 'config.cur_prefix', /config\.cur_prefix is required \(""/],
        [{ ...valid, cur_bucket: 'Acme_Billing' }, 'config.cur_bucket', /lowercase letters, digits, dots and hyphens/],
        [{ ...valid, cur_bucket: 'ab' }, 'config.cur_bucket', /3 to 63 characters/],
        [{ ...valid, cur_bucket: 'acme..billing' }, 'config.cur_bucket', /adjacent dots/],
        [{ ...valid, cur_bucket: '192.168.10.20' }, 'config.cur_bucket', /IP address/],
        [{ ...valid, cur_bucket: 'xn--billing' }, 'config.cur_bucket', /reserved prefix/],
        [{ ...valid, cur_bucket: 'billing-s3alias' }, 'config.cur_bucket', /reserved suffix/],
        [{ ...valid, cur_prefix: ['cur/'] }, 'config.cur_prefix', /must be a string/],
        [{ ...valid, cur_prefix: 'cur/\n' }, 'config.cur_prefix', /control characters/],
        [{ ...valid, external_id: 'x' }, 'config.external_id', /2 to 1224 characters/],
        [{ ...valid, external_id: 'has space' }, 'config.external_id', /2 to 1224 characters/],
        [{ ...valid, region: 'Virginia' }, 'config.region', /AWS region code/],
        [
          { ...valid, access_key_id: 'AKIA...' },
          'config.access_key_id',
          /config\.access_key_id is not a known AWS field/,
        ],
      ];
      for (const [raw, field, message] of cases) {
        const got = rejection(raw);
        expect(got, JSON.stringify(raw)).toMatchObject({ status: 400, details: { field } });
        expect(got?.message).toMatch(message);
      }
      expect(rejection({ ...valid, bucket: 'x', prefix: 'y' })?.message).toMatch(
        /^config\.bucket, config\.prefix are not known AWS fields/,
      );
    });
  });
});
