import { MAX_STORED_BODY } from '../outcome';
import type { SendOutcome, ThreadRef } from '../types';

type Settled = Exclude<SendOutcome, { state: 'retry' }>;
type Pending = Extract<SendOutcome, { state: 'retry' }>;

/** What one delivery has settled so far, per number; kept in the channel's per-incident memory between attempts. */
interface Memory {
  delivery: string;
  settled: Record<string, Settled>;
}

export interface FanOutContext {
  deliveryId: string;
  thread: ThreadRef;
}

/**
 * Sends one delivery to several numbers, each its own provider request, and folds their outcomes into the one the
 * delivery log records. A number Twilio accepted or refused for good is remembered for this delivery, so a retry only
 * goes to the numbers still pending and nobody gets the same SMS or call twice. The delivery is `sent` when every
 * number was accepted, `retry` while any number may still be reached, and `failed` once every number is settled and
 * at least one was refused (a wrong number in the list is a mistake the channel's owner has to see).
 */
export async function sendToEach(
  numbers: readonly string[],
  context: FanOutContext,
  sendOne: (to: string) => Promise<SendOutcome>,
): Promise<SendOutcome> {
  const memory = await recall(context);
  const pending = new Map<string, Pending>();
  const answered = await Promise.all(
    numbers.filter((to) => !memory.settled[to]).map(async (to) => [to, await sendOne(to)] as const),
  );
  for (const [to, outcome] of answered) {
    if (outcome.state === 'retry') pending.set(to, outcome);
    else memory.settled[to] = withoutBody(outcome);
  }
  if (answered.some(([, outcome]) => outcome.state !== 'retry')) await context.thread.set(JSON.stringify(memory));
  return combine(numbers, memory.settled, pending);
}

async function recall(context: FanOutContext): Promise<Memory> {
  const fresh: Memory = { delivery: context.deliveryId, settled: {} };
  const stored = await context.thread.get();
  if (!stored) return fresh;
  try {
    const memory = JSON.parse(stored) as Partial<Memory>;
    // The memory of an earlier delivery (another event of the same incident) says nothing about this one.
    return memory.delivery === context.deliveryId && typeof memory.settled === 'object' && memory.settled !== null
      ? (memory as Memory)
      : fresh;
  } catch {
    return fresh;
  }
}

function withoutBody(outcome: Settled): Settled {
  const { body: _body, ...rest } = outcome;
  return rest;
}

function combine(
  numbers: readonly string[],
  settled: Record<string, Settled>,
  pending: Map<string, Pending>,
): SendOutcome {
  const body = numbers
    .map((to) => `${to}: ${describe(settled[to] ?? pending.get(to))}`)
    .join('\n')
    .slice(0, MAX_STORED_BODY);
  const accepted = numbers.filter((to) => settled[to]?.state === 'sent' || settled[to]?.state === 'delivered');
  const tally = `${accepted.length} of ${numbers.length} accepted`;

  const [retryTo, retry] = [...pending][0] ?? [];
  if (retryTo && retry) {
    const waits = [...pending.values()].map((p) => p.retryAfterMs).filter((ms): ms is number => ms !== undefined);
    return {
      state: 'retry',
      status: retry.status,
      body,
      errorClass: retry.errorClass,
      message: `${tally}; ${retryTo}: ${retry.message}`,
      ...(waits.length > 0 ? { retryAfterMs: Math.max(...waits) } : {}),
    };
  }
  const refusedTo = numbers.find((to) => settled[to]?.state === 'failed');
  const refused = refusedTo ? settled[refusedTo] : undefined;
  if (refusedTo && refused?.state === 'failed') {
    return {
      state: 'failed',
      status: refused.status,
      body,
      errorClass: refused.errorClass,
      message: `${tally}; ${refusedTo} refused: ${refused.message}`,
    };
  }
  const refs = accepted.flatMap((to) => {
    const outcome = settled[to];
    return outcome?.state !== 'failed' && outcome?.providerRef ? [outcome.providerRef] : [];
  });
  return {
    state: 'sent',
    status: settled[numbers[0] ?? '']?.status,
    body,
    ...(refs.length > 0 ? { providerRef: refs.join(' ') } : {}),
  };
}

/** One line of the logged body: `+15551234567: sent 201 SM…`, `+15551234568: failed 400 provider_21211: …`. */
function describe(outcome: SendOutcome | undefined): string {
  if (!outcome) return 'not attempted';
  const detail =
    outcome.state === 'retry' || outcome.state === 'failed'
      ? `${outcome.errorClass}: ${outcome.message}`
      : outcome.providerRef;
  return [outcome.state, outcome.status, detail].filter((part) => part !== undefined).join(' ');
}
