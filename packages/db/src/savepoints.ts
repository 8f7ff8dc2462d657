import { NestedTransactionError } from './errors.js';

/**
 * What an ORM's own transaction becomes inside a Surety transaction: a SAVEPOINT, released with
 * it or rolled back to when it throws, so its writes stay in Surety's transaction (and commit with
 * the Idempotency-Key record, or not at all). One stack per connection; names unique per stack.
 * Internal to the adapters.
 */
export interface Savepoints {
  /** The statement that opens the next level. */
  begin(): string;
  /** The statement that ends the innermost level, keeping its writes. */
  commit(): string;
  /** The statement that undoes the innermost level's writes. */
  rollback(): string;
  /**
   * For drivers that send their transaction control as text (Drizzle's, knex's): the savepoint
   * statement that stands for `text`, or `text` itself when it is not transaction control. An
   * isolation level or access mode cannot change inside a transaction: refused.
   */
  translate(text: string): string;
}

const BEGIN = /^\s*(?:begin|start\s+transaction)\s*(?:(?:transaction|work)\s*)?;?\s*$/i;
const BEGIN_WITH_SETTINGS = /^\s*(?:begin|start\s+transaction)\b/i;
const COMMIT = /^\s*(?:commit|end)\s*(?:(?:transaction|work)\s*)?;?\s*$/i;
const ROLLBACK = /^\s*(?:rollback|abort)\s*(?:(?:transaction|work)\s*)?;?\s*$/i;

export function savepoints(prefix: string): Savepoints {
  const open: string[] = [];
  let made = 0;
  const innermost = (verb: string): string => {
    const name = open.pop();
    if (name === undefined) throw new NestedTransactionError(verb);
    return name;
  };
  const self: Savepoints = {
    begin() {
      const name = `${prefix}_${++made}`;
      open.push(name);
      return `savepoint ${name}`;
    },
    commit: () => `release savepoint ${innermost('commit')}`,
    rollback: () => `rollback to savepoint ${innermost('rollback')}`,
    translate(text) {
      if (BEGIN.test(text)) return self.begin();
      if (BEGIN_WITH_SETTINGS.test(text)) {
        throw new NestedTransactionError(
          text,
          'an isolation level or access mode cannot change inside the transaction Surety opened',
        );
      }
      if (COMMIT.test(text)) return self.commit();
      if (ROLLBACK.test(text)) return self.rollback();
      return text;
    },
  };
  return self;
}
