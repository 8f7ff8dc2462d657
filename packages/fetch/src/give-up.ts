import { giveUpChannel } from './diagnostics.js';
import type { GiveUpEvent, GiveUpReason } from './events.js';

/** Tells `onGiveUp` and the channel, then hands the failure back: the response, or the error thrown. */
export function report(
  onGiveUp: ((event: GiveUpEvent) => void) | undefined,
  url: string,
  method: string,
  attempts: number,
  reason: GiveUpReason,
  response: Response | undefined,
  error: unknown,
): Response {
  if (onGiveUp !== undefined || giveUpChannel.hasSubscribers) {
    const event: GiveUpEvent = { url, method, attempts, reason };
    if (response !== undefined) event.status = response.status;
    else event.error = error;
    onGiveUp?.(event);
    if (giveUpChannel.hasSubscribers) giveUpChannel.publish(event);
  }
  if (response !== undefined) return response;
  throw error;
}
