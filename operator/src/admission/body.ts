/**
 * Reads an AdmissionReview body under a size limit. A body over the limit is still read to its end, but none of it is
 * kept: only the request's uid is picked out on the way (UidScanner), so the answer carries the right uid. Answering
 * and closing before the client has finished sending would make it see EPIPE or ECONNRESET instead of the answer.
 * Draining has its own bounds in bytes and time, so a client that sends without end cannot hold the webhook.
 */
import type { IncomingMessage } from 'node:http';
import { UidScanner } from './uid-scanner.js';

export interface BodyLimits {
  /** Largest body decoded; a larger one is answered allowed with no patch. */
  maxBytes: number;
  /** Largest body drained to its end; past this the answer goes out and the connection is closed. */
  drainBytes: number;
  /** How long draining may take from the moment the body is known to be too large; same outcome as drainBytes. */
  drainMs: number;
}

export type ReadBody =
  | { kind: 'complete'; body: string }
  /** `drained`: the whole body was read, so the connection can stay open. */
  | { kind: 'tooLarge'; uid: string; drained: boolean }
  /** The client went away before the end; there is nobody to answer. */
  | { kind: 'gone' };

export function readBody(req: IncomingMessage, limits: BodyLimits): Promise<ReadBody> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let scanner: UidScanner | undefined;
    let timer: NodeJS.Timeout | undefined;
    let settled = false;

    const settle = (result: ReadBody) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const tooLarge = (drained: boolean) => settle({ kind: 'tooLarge', uid: scanner?.uid ?? '', drained });
    // From here on nothing is kept: what was buffered goes through the scanner and is dropped.
    const overLimit = () => {
      scanner = new UidScanner();
      for (const chunk of chunks) scanner.feed(chunk);
      chunks.length = 0;
      timer = setTimeout(() => tooLarge(false), limits.drainMs);
    };

    // A body announced as too large is not buffered even up to the limit.
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > limits.maxBytes) overLimit();

    req.on('data', (chunk: Buffer) => {
      if (settled) return;
      size += chunk.length;
      if (scanner) scanner.feed(chunk);
      else {
        chunks.push(chunk);
        if (size <= limits.maxBytes) return;
        overLimit();
      }
      if (size > limits.drainBytes) tooLarge(false);
    });
    req.on('end', () =>
      scanner ? tooLarge(true) : settle({ kind: 'complete', body: Buffer.concat(chunks, size).toString('utf8') }),
    );
    // 'close' without 'end' (or an 'error') means the client aborted; after 'end' it changes nothing.
    req.on('error', () => settle({ kind: 'gone' }));
    req.on('close', () => settle({ kind: 'gone' }));
  });
}
