import { createVerifier, generateSecret, isWebhookVerificationError, sign } from '@surety/webhook-verify';

// The sender (here, for the example) signs the raw body; the receiver verifies the same bytes.
const secret = generateSecret(); // whsec_…: one per endpoint, shared with the receiver once
const body = JSON.stringify({ id: 'evt_1', type: 'order.shipped', data: { orderId: 'ord_42' } });
const headers = await sign({ id: 'evt_1', body, secrets: [secret] });

// The receiver: one verifier per endpoint secret (or several, during a rotation).
const verifier = createVerifier({ secrets: [secret], toleranceSeconds: 300 });
const event = await verifier.verify(body, headers); // verify the raw bytes, then JSON.parse
console.log(event.format, event.id); // surety evt_1: de-duplicate on event.id

try {
  await verifier.verify(body.replace('ord_42', 'ord_43'), headers);
} catch (error) {
  if (!isWebhookVerificationError(error)) throw error;
  console.log(error.code); // SURETY_WEBHOOK_NO_MATCHING_SIGNATURE → answer 400, change nothing
}
