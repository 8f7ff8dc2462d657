// The explicit allow-list that opens named special ranges, for development and tests
// (a receiver on 127.0.0.1, a staging network on 10.1.2.0/24). Empty in production.
import type { AllowList } from './classify.js';
import { AllowListError } from './errors.js';
import { parseCidr } from './ip.js';

/** The environment variable read by {@link allowListFromEnv}. */
export const ALLOWED_CIDRS_ENV = 'SURETY_WEBHOOK_ALLOWED_CIDRS';

/**
 * Parses a comma- or whitespace-separated list of CIDRs (`127.0.0.1/32, ::1/128, 10.1.2.0/24`); a bare
 * address means a single host. Throws {@link AllowListError} naming the first bad entry, and refuses
 * entries with host bits set (`10.0.0.1/8`), so a typo never opens more than was meant.
 * @default value "" (nothing allowed)
 * @example
 * const allowList = parseAllowList('127.0.0.1/32');
 */
export function parseAllowList(
  value: string | readonly string[] | undefined,
  source = 'allowList',
): AllowList {
  const entries = (typeof value === 'string' ? value.split(/[\s,]+/) : (value ?? []))
    .map((e) => e.trim())
    .filter((e) => e.length > 0);
  return entries.map((entry) => {
    const parsed = parseCidr(entry);
    if (typeof parsed === 'string') throw new AllowListError(`${source}: ${parsed}`);
    return parsed;
  });
}

/**
 * Reads {@link ALLOWED_CIDRS_ENV} (`SURETY_WEBHOOK_ALLOWED_CIDRS`) from `env`.
 * @default env process.env
 * @example
 * // SURETY_WEBHOOK_ALLOWED_CIDRS=127.0.0.1/32 npm start
 * const guard = createGuardedDispatcher({ allowList: allowListFromEnv() });
 */
export function allowListFromEnv(env: NodeJS.ProcessEnv = process.env): AllowList {
  return parseAllowList(env[ALLOWED_CIDRS_ENV], ALLOWED_CIDRS_ENV);
}
