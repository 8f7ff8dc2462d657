export { ALLOWED_CIDRS_ENV, allowListFromEnv, parseAllowList } from './allow-list.js';
export {
  type AddressCategory,
  type AddressClassification,
  type AllowList,
  classifyAddress,
  isAllowListed,
  isBlockedAddress,
} from './classify.js';
export {
  type Connector,
  createGuardedDispatcher,
  type GuardedDispatcher,
  type GuardOptions,
  guardConnector,
  type ResolvedGuardOptions,
} from './dispatcher.js';
export {
  AllowListError,
  type BlockedAddress,
  DeliveryError,
  type DeliveryErrorCode,
  DnsError,
  isDeliveryError,
  isSsrfBlockedError,
  SsrfBlockedError,
  WebhookUrlError,
} from './errors.js';
export type { Cidr } from './ip.js';
export { type GuardedPostOptions, type GuardedResponse, guardedPost, toDeliveryError } from './post.js';
export {
  type ResolvedAddress,
  type Resolver,
  type ResolveTargetOptions,
  resolveTarget,
  systemResolver,
  type TargetCheck,
} from './resolve.js';
export {
  type UrlRejectionReason,
  type UrlValidation,
  type UrlValidationOptions,
  validateWebhookUrl,
} from './validate-url.js';
