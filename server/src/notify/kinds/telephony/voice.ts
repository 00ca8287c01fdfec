import { createTelephonyKind } from './channel';
import { renderCallTwiml } from './speech';

/**
 * `voice`: a call to each number of `config.to` that reads the incident summary and takes "press 1" as an
 * acknowledgement (Twilio posts the keypress, `Digits=1`, to the signed acknowledge link).
 */
export const voiceKind = createTelephonyKind({
  type: 'voice',
  resource: 'Calls',
  // A Messaging Service cannot place calls: calls need the account's own number as caller id.
  sender: (account) => (account.from ? { From: account.from } : undefined),
  missingSender: 'calls need a "from" number on the telephony account (a messaging service only sends SMS)',
  content: (notice) => ({ Twiml: renderCallTwiml(notice) }),
});
