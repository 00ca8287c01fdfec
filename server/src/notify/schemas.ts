import { z } from '@hono/zod-openapi';
import { AnyObject, Time, TimeOrNull } from '../http/schemas';
import { CHANNEL_TYPES } from './kinds/types';

/** What the notification routes answer (docs/notifications.md). */
export const Channel = z
  .object({
    id: z.string(),
    type: z.enum(CHANNEL_TYPES),
    name: z.string(),
    config: AnyObject.openapi({ description: 'Without any secret' }),
    secrets_set: z.array(z.string()).openapi({
      description:
        'The secret config fields that hold a value (`secret`, `webhook_url`, `smtp.password`), never their values',
      example: ['secret'],
    }),
    created_at: Time,
  })
  .openapi('Channel');

export const Rule = z
  .object({
    id: z.string(),
    name: z.string(),
    position: z.number().int(),
    conditions: z.object({
      severity: z.array(z.string()).optional(),
      env: z.array(z.string()).optional(),
      services: z.array(z.string()).optional(),
      assignees: z.array(z.string()).optional(),
    }),
    channels: z.array(z.string()),
    delay_seconds: z.number().int(),
    created_at: Time,
  })
  .openapi('Rule');

/** The delivery log's orders: when created, latency of the last attempt. */
export const DELIVERY_SORTS = ['created', 'latency'] as const;

/** The states of a delivery (SPEC 2.7), as the outbox writes them. */
export const DELIVERY_STATES = ['scheduled', 'sent', 'delivered', 'failed', 'retrying', 'cancelled'] as const;

export const Delivery = z
  .object({
    id: z.string(),
    channel_id: z.string(),
    channel_type: z.string(),
    incident_id: z.string().nullable(),
    issue_id: z
      .string()
      .nullable()
      .openapi({ description: 'Set for `issue.regressed` deliveries, which have no incident' }),
    event: z.string(),
    // Stored as text: the enum documents the values the server writes.
    trigger: z.string().openapi({ enum: ['incident', 'issue', 'project', 'test'] }),
    rule_id: z.string().nullable(),
    state: z.string().openapi({ enum: [...DELIVERY_STATES] }),
    attempt: z.number().int(),
    next_attempt_at: TimeOrNull,
    latency_ms: z.number().int().nullable(),
    response: z.object({ status: z.number().int().nullable(), body: z.string().nullable() }).nullable(),
    error_class: z.string().nullable(),
    error_message: z.string().nullable(),
    provider_ref: z.string().nullable(),
    created_at: Time,
    updated_at: Time,
    completed_at: TimeOrNull,
  })
  .openapi('Delivery');
