import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface Mailbox {
  port: number;
  /** Every message received, parsed, in order. */
  inbox: ParsedMail[];
  close(): Promise<void>;
}

/** A real SMTP server on a random local port, without TLS or authentication, that keeps whatever it is sent. */
export async function startMailbox(): Promise<Mailbox> {
  const inbox: ParsedMail[] = [];
  const smtp = new SMTPServer({
    secure: false,
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, _session, callback) {
      simpleParser(stream).then(
        (mail) => {
          inbox.push(mail);
          callback();
        },
        (error: Error) => callback(error),
      );
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', () => resolve()));
  return { port: (smtp.server.address() as AddressInfo).port, inbox, close: () => new Promise<void>((resolve) => smtp.close(() => resolve())) };
}
