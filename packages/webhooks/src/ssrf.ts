// @surety/webhooks/ssrf: the SSRF guard on its own (URL checks, address classification, the guarded
// undici dispatcher and POST, their coded errors).
export * from './ssrf/index.js';
