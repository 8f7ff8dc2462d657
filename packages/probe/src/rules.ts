/** The rules the probe checks, with the level the specification gives each and where it says so. */

export type Level = 'MUST' | 'SHOULD';
export type Verdict = 'pass' | 'fail' | 'inconclusive' | 'not-applicable';

export interface RuleInfo {
  id: string;
  level: Level;
  title: string;
  /** Where the requirement comes from. */
  source: string;
}

const DRAFT = 'draft-ietf-httpapi-idempotency-key-header';

export const RULES = {
  replay: {
    level: 'MUST',
    title: 'a retry with the same key and body gets the first answer, not a second execution',
    source: `${DRAFT}, "Idempotency Enforcement"`,
  },
  'replay-header': {
    level: 'SHOULD',
    title: 'a replayed answer says so (Idempotent-Replayed: true)',
    source: 'Surety, Stripe (not in the draft)',
  },
  'reuse-422': {
    level: 'SHOULD',
    title: 'the same key with another body is refused with 422',
    source: `${DRAFT}, "Error Scenarios"`,
  },
  'in-flight-once': {
    level: 'MUST',
    title: 'concurrent duplicates run the operation at most once',
    source: `${DRAFT}, "Idempotency Enforcement"`,
  },
  'in-flight-409': {
    level: 'SHOULD',
    title: 'a duplicate that arrives while the first is in flight gets 409 with Retry-After',
    source: `${DRAFT}, "Error Scenarios"; RFC 9110 §10.2.3`,
  },
  'missing-key-400': {
    level: 'SHOULD',
    title: 'a request without a required key is refused with 400',
    source: `${DRAFT}, "Error Scenarios"`,
  },
  'key-length': {
    level: 'SHOULD',
    title: 'an oversized key (1,024 characters) is refused with a 4xx, not stored or a 5xx',
    source: `${DRAFT} leaves the bound to the server (Surety: 255)`,
  },
  'quoted-key': {
    level: 'MUST',
    title: 'the structured-field form "k" names the same key as k',
    source: `${DRAFT}: the value is an RFC 8941 String (§3.3.3)`,
  },
  'etag-304': {
    level: 'MUST',
    title: 'a GET with If-None-Match: <current ETag> answers 304',
    source: 'RFC 9110 §13.1.2',
  },
  'stale-412': {
    level: 'MUST',
    title: 'a write with a stale If-Match is refused with 412 and changes nothing',
    source: 'RFC 9110 §13.1.1',
  },
  'weak-412': {
    level: 'MUST',
    title: 'a weak tag never matches If-Match (strong comparison): 412',
    source: 'RFC 9110 §13.1.1, §8.8.3.2',
  },
  'current-proceeds': {
    level: 'MUST',
    title: 'a write with the current ETag in If-Match proceeds',
    source: 'RFC 9110 §13.1.1',
  },
  'missing-428': {
    level: 'SHOULD',
    title: 'a write without If-Match, where one is required, is refused with 428',
    source: 'RFC 6585 §3',
  },
} as const satisfies Record<string, Omit<RuleInfo, 'id'>>;

export type RuleId = keyof typeof RULES;

export interface RuleResult extends RuleInfo {
  id: RuleId;
  verdict: Verdict;
  /** What was sent and seen, and what to change on a failure. */
  detail: string;
}

export const result = (id: RuleId, verdict: Verdict, detail: string): RuleResult => ({
  id,
  ...RULES[id],
  verdict,
  detail,
});
