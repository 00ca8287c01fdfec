import { noticeSubject } from '../notice-wording';
import { parseEmailConfig, type EmailConfig, type EmailSecrets } from './config';
import { renderEmailReport } from './report';
import { sendBySmtp } from './transport';
import type { ChannelKind, Notice, RetryPolicy } from '../types';

/**
 * Mail servers answer 4xx to say "later": greylisting asks for a retry after one to fifteen minutes, a full mailbox or
 * a busy server clears within the hour. So 30 s (a blip), 5 min (past most greylisting) and 30 min (past the rest).
 * 10 s bounds each wait: connecting, the greeting, and each reply.
 */
export const EMAIL_RETRY: RetryPolicy = { delaysMs: [30_000, 5 * 60_000, 30 * 60_000], timeoutMs: 10_000 };

export interface EmailKindOptions {
  /** Lets the SMTP server be on loopback or a private network (`--allow-private-targets`). */
  allowPrivateTargets: boolean;
}

/**
 * `email`: an HTML incident report with a plain-text alternative, sent over SMTP to `config.to`. The kind resolves and
 * checks the mail server's address itself (SMTP does not go through the HTTP client), hence the options.
 */
export function createEmailKind(options: EmailKindOptions): ChannelKind<EmailConfig, EmailSecrets> {
  return {
    type: 'email',
    retry: EMAIL_RETRY,

    parse: async (config) => parseEmailConfig(config),

    publicConfig: (config) => ({ to: [...config.to], from: config.from, smtp: { ...config.smtp } }),

    targets: (config) => [{ field: 'config.smtp.host', host: config.smtp.host }],

    async send(context) {
      const { config, notice } = context;
      const report = renderEmailReport(notice);
      const domain = config.from.slice(config.from.lastIndexOf('@') + 1);
      return sendBySmtp({
        smtp: config.smtp,
        password: context.secrets.smtp_password,
        allowPrivateTargets: options.allowPrivateTargets,
        timeoutMs: EMAIL_RETRY.timeoutMs,
        message: {
          from: config.from,
          to: config.to,
          subject: report.subject,
          text: report.text,
          html: report.html,
          // The same Message-ID on every retry lets a receiving system drop a copy it already has.
          messageId: `<${context.deliveryId.replace(/[^\w.-]/g, '-')}@${domain}>`,
          // Mail clients that thread by reference (Apple Mail, Thunderbird) keep an incident's (an issue's) mails together.
          references: `<${references(notice)}@${domain}>`,
          // RFC 3834: no vacation auto-replies to an alert.
          headers: { 'Auto-Submitted': 'auto-generated' },
        },
      });
    },
  };
}

/** The local part of the `References` id: `incident-inc_42`, `issue-3f2a…`. */
function references(notice: Notice): string {
  const [noun, id] = noticeSubject(notice);
  return `${noun.toLowerCase()}-${id}`.replace(/[^\w.-]/g, '-');
}
