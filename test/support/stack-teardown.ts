// Jest global teardown: stop exactly what the setup started.
export default async function teardown() {
  await globalThis.__AUTHZ_STACK__?.stop();
}
