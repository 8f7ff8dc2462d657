// An application's public data types (docs/applications.md).

/** A customer of the tenant, with its own endpoints (docs/applications.md). */
export interface Application {
  /** `app_…` */
  id: string;
  /** The tenant's own id for this customer, unique per tenant; never starts with `app_`. */
  uid: string | null;
  name: string;
  /** The tenant's own string values, kept as given. */
  metadata: Record<string, string>;
  version: number;
  createdAt: string;
  updatedAt: string;
}

export interface CreateApplicationInput {
  tenant: string;
  /**
   * The tenant's own id for the customer: 1-100 of `A-Z a-z 0-9 . _ -`, starting with a letter or
   * digit, not with `app_`. Throws ApplicationUidTakenError when another application has it.
   */
  uid?: string | null;
  name: string;
  /** @default {} */
  metadata?: Record<string, string>;
}

/** One application of one tenant: what a lookup or a mutation names. */
export interface ApplicationRef {
  tenant: string;
  /** The application's id (`app_…`) or its uid. */
  id: string;
}

/** What `updateApplication` may change; `metadata` replaces the whole object, `uid: null` clears it. */
export type ApplicationPatch = Partial<Pick<CreateApplicationInput, 'uid' | 'name' | 'metadata'>>;

export interface UpdateApplicationInput extends ApplicationRef {
  /** The version the change is meant for (optimistic concurrency: `If-Match`). */
  ifVersion: number;
  patch: ApplicationPatch;
}

export interface DeleteApplicationInput extends ApplicationRef {
  /** Delete only this version; omitted: whatever version it is at. */
  ifVersion?: number;
}
