// Pull delivery (issue 36, docs/destinations.md "Poll"): the reads, the acknowledgement, the cursor
// tokens and the long-poll waits of a `poll` endpoint.
export { MAX_CURSOR_LENGTH } from './cursor.js';
export type { AckPollInput, PollItem, PollPage, ReadPollInput } from './read.js';
export { MAX_POLL_LIMIT } from './read.js';
export { PollWaits, type PollWaitsOptions } from './waits.js';
