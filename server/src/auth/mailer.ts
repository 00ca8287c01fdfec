import { sendBySmtp } from '../notify/kinds/email/transport';

/** The server's own mail (password resets, invitations): `SVC_SMTP_URL` and `SVC_MAIL_FROM` (docs/teams.md). */
export interface MailSettings {
  /** `smtp://user:pass@host:587` (STARTTLS when offered) or `smtps://…:465` (TLS from the first byte). */
  smtpUrl: string;
  from: string;
}

export interface Mailer {
  /** Sends a plain-text message; throws with the server's reply when it is not taken. */
  sendMail(to: string, subject: string, text: string): Promise<void>;
}

const TIMEOUT_MS = 15_000;

/** Why an `SVC_SMTP_URL` cannot be used, or undefined when it can. */
export function smtpUrlProblem(raw: string): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `must be a URL like smtp://user:password@mail.example.com:587 (got "${raw}")`;
  }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:')
    return `must start with smtp:// or smtps:// (got "${raw}")`;
  if (!url.hostname) return 'must name the mail server';
  return undefined;
}

/**
 * A mailer over the configured SMTP server, through the e-mail channels' transport. The server is the operator's own
 * setting, not a user's, so it may be on loopback or a private network.
 */
export function createMailer(settings: MailSettings): Mailer {
  const url = new URL(settings.smtpUrl);
  const secure = url.protocol === 'smtps:';
  const user = url.username ? decodeURIComponent(url.username) : null;
  const password = url.password ? decodeURIComponent(url.password) : null;
  const smtp = {
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port: url.port ? Number(url.port) : secure ? 465 : 587,
    secure,
    user,
    require_tls: false,
  };
  return {
    async sendMail(to, subject, text) {
      const outcome = await sendBySmtp({
        smtp,
        password,
        allowPrivateTargets: true,
        timeoutMs: TIMEOUT_MS,
        message: { from: settings.from, to, subject, text },
      });
      if (outcome.state === 'retry' || outcome.state === 'failed')
        throw new Error(`mail to ${to} not sent: ${outcome.message}`);
    },
  };
}
