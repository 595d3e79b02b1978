// PATCH /config/database: validated, answered with what is in force, and the service keeps working with the new
// options (that they reach the MongoDB driver: database-config.test.ts, on the stack).
import { startService, type TestService } from '../support/service.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startService();
}, 120_000);
afterAll(async () => {
  await svc?.stop();
});

it('PATCH /config/database is validated and applied: the service keeps working with the new options', async () => {
  const bad = await svc.http('PATCH', '/config/database', { body: { readPreference: 'fastest' } });
  expect(bad.status).toBe(400);
  const ok = await svc.http('PATCH', '/config/database', { body: { readPreference: 'primaryPreferred', readConcern: { level: 'local' }, writeConcern: { w: 1 } } });
  expect(ok.status).toBe(200);
  expect(ok.body).toEqual({ readPreference: 'primaryPreferred', readConcern: { level: 'local' }, writeConcern: { w: 1 } });
  await svc.http('POST', '/authorization/resources', { body: { name: 'Crate', relations: { holder: ['User'] }, permissions: { open: ['holder'] } } });
  expect((await svc.http('POST', '/authorization/relations', { body: { subject: 'User:c', relation: 'holder', resource: 'Crate:1' } })).status).toBe(201);
  expect((await svc.http('GET', '/authorization/relations?search=Crate')).body.count).toBe(1);
});
