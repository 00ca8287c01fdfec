import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One scripted answer of the fake model endpoint. */
export type FakeReply =
  /** 200 with this `choices[0].message.content` and usage. */
  | { content: string; usage?: { prompt_tokens: number; completion_tokens: number } }
  /** An error status, e.g. 429 with `retry-after`, or 503. */
  | { status: number; headers?: Record<string, string>; error?: string }
  /** Answers `then` once `until` settles: a slow model, or (never settling before close) one that never answers. */
  | { until: Promise<unknown>; then: FakeReply };

export interface ChatRequest {
  headers: IncomingMessage['headers'];
  body: {
    model: string;
    messages: Array<{ role: string; content: string }>;
    response_format?: { type: string };
    [key: string]: unknown;
  };
}

export interface FakeOpenAi {
  /** The API root to configure as `SVC_AI_BASE_URL`: `http://127.0.0.1:<port>/v1`. */
  baseUrl: string;
  /** Every chat-completions request received, in order. */
  requests: ChatRequest[];
  /** Queues answers for the next requests, in order; a request with nothing queued gets a 500. */
  script(...replies: FakeReply[]): void;
  /** Resolves once `n` requests have arrived in all. */
  received(n: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * A local HTTP server speaking OpenAI's chat-completions wire format (`POST /v1/chat/completions`), answering from a
 * script, for the production `openai` client to talk to.
 */
export async function startFakeOpenAi(): Promise<FakeOpenAi> {
  const queue: FakeReply[] = [];
  const requests: ChatRequest[] = [];
  const waiters: Array<{ n: number; resolve: () => void }> = [];

  const send = async (res: ServerResponse, reply: FakeReply, model: string): Promise<void> => {
    if ('until' in reply) {
      await reply.until;
      return send(res, reply.then, model);
    }
    if ('status' in reply) {
      res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
      res.end(JSON.stringify({ error: { message: reply.error ?? `scripted ${reply.status}`, type: 'scripted' } }));
      return;
    }
    const usage = reply.usage ?? { prompt_tokens: 100, completion_tokens: 20 };
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id: `chatcmpl-${requests.length}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model,
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: reply.content, refusal: null },
            finish_reason: 'stop',
            logprobs: null,
          },
        ],
        usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
      }),
    );
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        res
          .writeHead(404, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: { message: `no ${req.method} ${req.url}` } }));
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatRequest['body'];
      requests.push({ headers: req.headers, body });
      for (const w of waiters.filter((w) => requests.length >= w.n)) w.resolve();
      send(res, queue.shift() ?? { status: 500, error: 'nothing scripted' }, body.model).catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    script: (...replies) => void queue.push(...replies),
    received: (n) =>
      requests.length >= n ? Promise.resolve() : new Promise((resolve) => waiters.push({ n, resolve })),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // A held answer would keep close() waiting for its socket.
        server.closeAllConnections();
      }),
  };
}
