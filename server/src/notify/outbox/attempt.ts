import type { Kysely } from 'kysely';
import type { Clock } from '../../clock';
import type { Database } from '../../db/schema';
import type { IntegrationStore } from '../../integrations/store';
import type { SecretBox } from '../../secrets/secret-box';
import { channelById, type ChannelRow } from '../channels/store';
import { storedNotice } from '../deliveries/json';
import { recordAttempt, saveNotice, type DeliveryRow } from '../deliveries/store';
import type { GuardedHttp } from '../http/guarded-http';
import type { KindRegistry } from '../kinds/registry';
import type { ChannelKind, ChannelType, IncidentNotice, Notice, SendOutcome } from '../kinds/types';
import { afterAttempt } from './backoff';
import type { Pace } from './pacer';
import type { Threads } from './threads';

/** What the outbox sends with: the database, the kinds and what they need. */
export interface SendDeps {
  db: Kysely<Database>;
  clock: Clock;
  box: SecretBox;
  http: GuardedHttp;
  kinds: KindRegistry;
  integrations: IntegrationStore;
  /**
   * The notice of an incident delivery, built at its first attempt (later attempts resend the same). Test and issue
   * deliveries are written with their notice.
   */
  noticeFor: (delivery: DeliveryRow) => Promise<IncidentNotice | undefined>;
  log: (line: string) => void;
}

/** What an attempt needs: the above, this worker's lease owner, its pacing and its thread memory. */
export interface AttemptContext extends SendDeps {
  owner: string;
  pace: Pace;
  threads: Threads;
}

/** An attempt's outcome and when it was made. */
interface Sent {
  outcome: SendOutcome;
  startedMs: number;
  latencyMs: number;
}

/** One attempt of a claimed delivery: its notice, the send through its channel's kind, and the record of both. */
export async function attemptDelivery(ctx: AttemptContext, delivery: DeliveryRow): Promise<void> {
  const startedMs = ctx.clock.now();
  const channel = await channelById(ctx.db, delivery.channel_id);
  const kind = ctx.kinds[delivery.channel_type as ChannelType];
  const notice = await noticeOf(ctx, delivery);
  let sent: Sent;
  if (!channel || !kind) {
    const message = channel ? `no ${delivery.channel_type} kind in this server` : 'the channel was deleted';
    sent = { outcome: { state: 'failed', errorClass: 'channel_unavailable', message }, startedMs, latencyMs: 0 };
  } else if (notice === undefined) {
    const outcome = {
      state: 'failed',
      errorClass: 'incident_missing',
      message: 'the incident no longer exists',
    } as const;
    sent = { outcome, startedMs, latencyMs: 0 };
  } else {
    sent = await send(ctx, delivery, channel, kind, notice);
  }
  await record(ctx, delivery, sent, kind?.retry.delaysMs ?? []);
}

/** The delivery's notice: the one it was written or first sent with, else built now and kept. */
async function noticeOf(ctx: AttemptContext, delivery: DeliveryRow): Promise<Notice | undefined> {
  const stored = storedNotice(delivery);
  if (stored !== undefined) return stored;
  const notice = await ctx.noticeFor(delivery);
  if (notice !== undefined) await saveNotice(ctx.db, delivery.id, notice);
  return notice;
}

/** Sends through the kind, in the channel's turn; a kind that throws gets a retryable outcome rather than a lost one. */
async function send(
  ctx: AttemptContext,
  delivery: DeliveryRow,
  channel: ChannelRow,
  kind: ChannelKind,
  notice: Notice,
): Promise<Sent> {
  await ctx.pace(channel.id, kind.retry.minIntervalMs);
  const startedMs = ctx.clock.now();
  const clockStart = performance.now();
  let outcome: SendOutcome;
  try {
    outcome = await kind.send({
      config: JSON.parse(channel.config) as unknown,
      secrets: ctx.box.open(channel.secrets),
      notice,
      deliveryId: delivery.id,
      attempt: delivery.attempt + 1,
      http: ctx.http,
      clock: ctx.clock,
      thread: ctx.threads.of(delivery),
      integrations: ctx.integrations.of(channel.project_id),
    });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    outcome = { state: 'retry', errorClass: 'internal', message };
    ctx.log(`notification kind ${delivery.channel_type} threw on delivery ${delivery.id}: ${message}`);
  }
  return { outcome, startedMs, latencyMs: performance.now() - clockStart };
}

async function record(ctx: AttemptContext, delivery: DeliveryRow, sent: Sent, delaysMs: readonly number[]) {
  const attempt = delivery.attempt + 1;
  const { state, retryInMs } = afterAttempt(sent.outcome, attempt, delaysMs);
  const ours = await recordAttempt(ctx.db, ctx.owner, delivery.id, {
    ...sent,
    attempt,
    state,
    retryInMs,
    nowMs: ctx.clock.now(),
  });
  if (retryInMs === undefined) ctx.threads.forget(delivery.id);
  // Cancelled (acknowledged meanwhile) or taken over after the lease ran out: the attempt is still logged.
  if (!ours)
    ctx.log(`delivery ${delivery.id}: attempt ${attempt} finished after the delivery was cancelled or taken over`);
}
