// The portal routes' answers: a session (with its token, once) and the tenant's portal settings.
import type { PortalSettingsRow } from '../data/portal.js';

export const sessionSchema = {
  type: 'object',
  required: ['object', 'id', 'applicationId', 'url', 'token', 'readOnly', 'expiresAt', 'createdAt'],
  properties: {
    object: { type: 'string', const: 'portal_session' },
    id: { type: 'string', description: 'The session id (`ps_…`), for DELETE /v1/portal-sessions/{id}.' },
    applicationId: { type: 'string' },
    url: {
      type: 'string',
      description:
        'The page to give your customer: `<base>/portal/<id>#token=<token>`. The token is in the fragment, ' +
        'which browsers never send, so it is in no request line, log or Referer.',
    },
    token: {
      type: 'string',
      description:
        'The bearer token (`ps_<id>.<secret>`), in this answer only: the service keeps only its SHA-256.',
    },
    readOnly: { type: 'boolean' },
    expiresAt: { type: 'string', format: 'date-time' },
    createdAt: { type: 'string', format: 'date-time' },
  },
} as const;

export const settingsSchema = {
  type: 'object',
  required: ['object', 'frameAncestors', 'updatedAt'],
  properties: {
    object: { type: 'string', const: 'portal_settings' },
    frameAncestors: {
      type: 'array',
      items: { type: 'string' },
      description: 'The origins that may frame the portal (CSP frame-ancestors); empty: none may.',
    },
    updatedAt: { type: ['string', 'null'], format: 'date-time' },
  },
} as const;

export const presentSettings = (row: PortalSettingsRow | undefined) => ({
  object: 'portal_settings' as const,
  frameAncestors: row?.frame_ancestors ?? [],
  updatedAt: row ? new Date(row.updated_at).toISOString() : null,
});
