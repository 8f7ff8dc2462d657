// @surety/webhooks: the public surface. The SSRF guard is self-contained under ./ssrf/.
export * from './ssrf/index.js';
