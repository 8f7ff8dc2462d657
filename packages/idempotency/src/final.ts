// Answers that say the operation was not carried out (Stripe: "results are only saved if an API
// endpoint started executing"): bad or unauthorised input, a missing resource, a failed or missing
// precondition, "try later". A retry with the same key, once fixed, must run.
const NOT_FINAL = new Set([400, 401, 403, 404, 405, 408, 412, 413, 415, 425, 428, 429]);

/** The default of `isFinal`. */
export const isFinalStatus = (status: number): boolean => status < 500 && !NOT_FINAL.has(status);
