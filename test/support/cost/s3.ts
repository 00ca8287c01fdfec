import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';

/** One request that reached S3 through the recording proxy. */
export interface S3Request {
  method: string;
  path: string;
  /** Query parameters, e.g. `{ 'list-type': '2', prefix: 'cur/' }`. */
  query: Record<string, string>;
  range: string | null;
}

export interface LocalS3 {
  /** The recording proxy: the endpoint the code under test is given. */
  endpoint: string;
  /** What the code under test asked S3 for, in order. */
  requests: S3Request[];
  /** A client for the test's own doings (creating buckets, uploading reports), straight to s3rver: not recorded. */
  admin: S3Client;
  createBucket(name: string): Promise<void>;
  close(): Promise<void>;
}

interface S3rverInstance {
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
  httpServer?: Server;
}

type S3rverConstructor = new (options: {
  address: string;
  port: number;
  directory: string;
  silent: boolean;
  allowMismatchedSignatures?: boolean;
}) => S3rverInstance;

/** s3rver accepts SigV4 requests from its one account, key id `S3RVER` (it does not check the signature itself). */
export const S3RVER_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

/**
 * s3rver (a real S3 protocol server, on the filesystem of a temp directory) on loopback, behind a pass-through proxy
 * that records each request, so a test can assert what the code under test did to the bucket — for a read-only
 * source, that it only ever issued GET and HEAD.
 */
export async function startLocalS3(): Promise<LocalS3> {
  const directory = await mkdtemp(join(tmpdir(), 'svc-s3rver-'));
  // s3rver ships CommonJS without type declarations.
  const S3rver = createRequire(import.meta.url)('s3rver') as S3rverConstructor;
  const s3rver = new S3rver({ address: '127.0.0.1', port: 0, directory, silent: true });
  const { port: s3rverPort } = await s3rver.run();
  const upstream = `http://127.0.0.1:${s3rverPort}`;

  const requests: S3Request[] = [];
  const proxy: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', upstream);
    requests.push({
      method: req.method ?? '',
      path: decodeURIComponent(url.pathname),
      query: Object.fromEntries(url.searchParams),
      range: req.headers.range ?? null,
    });
    const forward = request(upstream + (req.url ?? '/'), { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));

  const admin = new S3Client({
    region: 'us-east-1',
    endpoint: upstream,
    forcePathStyle: true,
    credentials: S3RVER_CREDENTIALS,
    // s3rver predates flexible checksums: send plain bodies, not aws-chunked ones with checksum trailers.
    requestChecksumCalculation: 'WHEN_REQUIRED',
  });

  return {
    endpoint: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    requests,
    admin,
    createBucket: async (name) => {
      await admin.send(new CreateBucketCommand({ Bucket: name }));
    },
    close: async () => {
      admin.destroy();
      proxy.closeAllConnections();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
      s3rver.httpServer?.closeAllConnections();
      await s3rver.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
