/**
 * The text of the incident link pages (server/src/incidents/pages.ts) that needs no request: the confirmation form of
 * an action link and what a voice call says after a keypress. The pages over HTTP, signed links and all:
 * test/integration/notify-telephony, notify-webhook and notify-wiring.
 */
import { describe, expect, it } from 'vitest';
import { confirmationForm, keypressReply, twimlSay } from '../../server/src/incidents/pages';

describe('confirmationForm', () => {
  it('posts to the signed URL it was opened with, escaped', () => {
    expect(confirmationForm('resolve', 'inc<1>', '/incidents/inc/resolve?p=a&sig=b')).toBe(
      '<h1>Resolve incident inc&lt;1&gt;?</h1><form method="post" action="/incidents/inc/resolve?p=a&amp;sig=b"><button>Resolve</button></form>',
    );
  });
});

describe('keypressReply', () => {
  it('confirms what was done, or says nothing was, or that the link is no longer valid', () => {
    expect(keypressReply(true, true, 'acknowledged')).toBe('Incident acknowledged. Goodbye.');
    expect(keypressReply(true, false, 'resolved')).toBe('No action taken. Goodbye.');
    expect(keypressReply(false, false, 'resolved')).toBe('This link is no longer valid. Goodbye.');
  });

  it('is said in TwiML', () => {
    expect(twimlSay('No action taken. Goodbye.')).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><Response><Say>No action taken. Goodbye.</Say></Response>',
    );
  });
});
