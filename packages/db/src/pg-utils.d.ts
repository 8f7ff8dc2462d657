// node-postgres' value serialisation (the one `pg.Query` binds its values with), which it exports
// as `pg/lib/utils.js` but does not type.
declare module 'pg/lib/utils.js' {
  const utils: { prepareValue(value: unknown): unknown };
  export default utils;
}
