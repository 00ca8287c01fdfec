import type { ChannelType } from './types';

/**
 * The form of each channel type: one entry per config field the server's kind reads (server/src/notify/kinds/*).
 * `path` is where the value goes in `config` (`smtp.port` → `config.smtp.port`), which is also how a 400 names it.
 * Secret fields are password inputs the server never returns: left empty they are left out, so an edit keeps them.
 */
export interface ConfigField {
  path: string;
  label: string;
  input: 'text' | 'url' | 'email' | 'list' | 'number' | 'checkbox' | 'secret';
  required?: boolean;
  hint?: string;
  placeholder?: string;
}

export const CHANNEL_LABELS: Record<ChannelType, string> = {
  webhook: 'Webhook',
  chat: 'Chat (Slack-compatible)',
  teams: 'Microsoft Teams',
  email: 'E-mail',
  sms: 'SMS',
  voice: 'Voice call',
};

export const CHANNEL_FIELDS: Record<ChannelType, readonly ConfigField[]> = {
  webhook: [
    { path: 'url', label: 'URL', input: 'url', required: true, placeholder: 'https://hooks.example.com/svc' },
    {
      path: 'secret',
      label: 'Signing secret',
      input: 'secret',
      hint: 'Standard Webhooks secret (whsec_…). Empty: the server makes one on creation and keeps the current one on edit.',
    },
  ],
  chat: [
    {
      path: 'webhook_url',
      label: 'Incoming webhook URL',
      input: 'secret',
      hint: 'Not needed when the chat app integration is connected.',
    },
    { path: 'channel', label: 'Channel', input: 'text', placeholder: '#incidents' },
  ],
  teams: [{ path: 'webhook_url', label: 'Workflow webhook URL', input: 'secret', required: true }],
  email: [
    { path: 'to', label: 'To (comma-separated)', input: 'list', required: true, placeholder: 'oncall@example.com' },
    { path: 'from', label: 'From', input: 'email', required: true, placeholder: 'svc@example.com' },
    { path: 'smtp.host', label: 'SMTP host', input: 'text', required: true },
    { path: 'smtp.port', label: 'SMTP port', input: 'number', placeholder: '587' },
    { path: 'smtp.secure', label: 'TLS from the start (port 465)', input: 'checkbox' },
    { path: 'smtp.require_tls', label: 'Require STARTTLS', input: 'checkbox' },
    { path: 'smtp.user', label: 'SMTP user', input: 'text' },
    { path: 'smtp.password', label: 'SMTP password', input: 'secret' },
  ],
  sms: [
    {
      path: 'to',
      label: 'Phone numbers (E.164, comma-separated)',
      input: 'list',
      required: true,
      hint: 'Needs the telephony integration.',
      placeholder: '+15551234567',
    },
  ],
  voice: [
    {
      path: 'to',
      label: 'Phone numbers (E.164, comma-separated)',
      input: 'list',
      required: true,
      hint: 'Needs the telephony integration.',
      placeholder: '+15551234567',
    },
  ],
};

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function readPath(config: Record<string, unknown>, path: string): unknown {
  let value: unknown = config;
  for (const step of path.split('.')) value = isObject(value) ? value[step] : undefined;
  return value;
}

function writePath(config: Record<string, unknown>, path: string, value: unknown): void {
  const steps = path.split('.');
  let parent = config;
  for (const step of steps.slice(0, -1)) {
    if (!isObject(parent[step])) parent[step] = {};
    parent = parent[step] as Record<string, unknown>;
  }
  parent[steps[steps.length - 1]!] = value;
}

/** The form's value of a field as the input shows it. */
export function fieldText(config: Record<string, unknown>, field: ConfigField): string {
  const value = readPath(config, field.path);
  if (value === undefined || value === null || field.input === 'secret') return '';
  return Array.isArray(value) ? value.join(', ') : String(value);
}

/** `config` from the form: empty fields (and empty secrets, which the server then keeps) are left out. */
export function configFromForm(type: ChannelType, form: FormData): Record<string, unknown> {
  const config: Record<string, unknown> = {};
  for (const field of CHANNEL_FIELDS[type]) {
    if (field.input === 'checkbox') {
      // Unticked is left out, so the server's default applies (e.g. TLS from the start when the port is 465).
      if (form.get(field.path) === 'on') writePath(config, field.path, true);
      continue;
    }
    const text = String(form.get(field.path) ?? '').trim();
    if (text === '') continue;
    if (field.input === 'list') writePath(config, field.path, text.split(/[\s,;]+/).filter(Boolean));
    else if (field.input === 'number') writePath(config, field.path, Number(text));
    else writePath(config, field.path, text);
  }
  return config;
}

/** One line of a channel's public config for the list (`https://…`, `2 recipients`). */
export function configSummary(type: ChannelType, config: Record<string, unknown>): string {
  return CHANNEL_FIELDS[type]
    .filter((f) => f.input !== 'secret' && f.input !== 'checkbox')
    .map((f) => fieldText(config, f))
    .filter(Boolean)
    .join(' · ');
}
