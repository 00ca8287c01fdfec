import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface Delivered {
  mail: ParsedMail;
  /** The envelope's recipients the server accepted. */
  recipients: string[];
}

export interface Mailbox {
  port: number;
  /** Every message received, parsed, in order. */
  inbox: Delivered[];
  /** Every login, in order: a client with no user does not log in. */
  logins: Array<{ username?: string; password?: string }>;
  close(): Promise<void>;
}

/**
 * A real SMTP server on a random local port, without TLS, that takes any login and keeps whatever it is sent, except
 * for the `refused` addresses, which it answers with their reply code as a broken (5xx) or greylisting (4xx) mailbox does.
 */
export async function startMailbox({ refused = {} }: { refused?: Record<string, number> } = {}): Promise<Mailbox> {
  const inbox: Delivered[] = [];
  const logins: Mailbox['logins'] = [];
  const smtp = new SMTPServer({
    secure: false,
    authOptional: true,
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onAuth(auth, _session, callback) {
      logins.push({ username: auth.username, password: auth.password ?? undefined });
      callback(null, { user: auth.username });
    },
    onRcptTo(address, _session, callback) {
      const code = refused[address.address];
      if (code)
        return callback(
          Object.assign(new Error(code >= 500 ? 'Mailbox unavailable' : 'Greylisted, try again later'), {
            responseCode: code,
          }),
        );
      callback();
    },
    onData(stream, session, callback) {
      simpleParser(stream).then(
        (mail) => {
          inbox.push({ mail, recipients: session.envelope.rcptTo.map((rcpt) => rcpt.address) });
          callback();
        },
        (error: Error) => callback(error),
      );
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', () => resolve()));
  return {
    port: (smtp.server.address() as AddressInfo).port,
    inbox,
    logins,
    close: () => new Promise<void>((resolve) => smtp.close(() => resolve())),
  };
}
