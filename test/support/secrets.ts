/** Secrets shaped like real ones (none is live), shared by the body-redaction tests in Node and in Chromium. */

/** A well-formed JSON Web Token (jwt.io's example). */
export const JWT =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c';
/** Shaped like a Stripe secret key; not a real one. */
export const STRIPE_KEY = 'sk_live_51Hx2aBcDeFgHiJkLmNoPqRsT';
/** A random 32-character token with no known prefix, as bearer tokens and API keys often are. */
export const RANDOM_TOKEN = 'q8Zt3mV0xL2pR7kW9cY4bN1dF6hJ5sGa';
/** A Luhn-valid test card number. */
export const VISA = '4111 1111 1111 1111';
