// A stopped service leaves no timer or connection running, even one whose Redis was down: jest needed forceExit to end.
import { eventually } from '../support/eventually.js';
import { startService } from '../support/service.js';

/** This process's timers and sockets, by kind ("Timeout 3, TCPSocketWrap 1"), the ones running when the test began left out. */
function resources(before: string[]): string {
  const left = [...before];
  const now = process.getActiveResourcesInfo().filter((r) => {
    const i = left.indexOf(r);
    if (i < 0) return /Timeout|TCP/.test(r);
    left.splice(i, 1);
    return false;
  });
  return [...new Set(now)].map((r) => `${r} ${now.filter((x) => x === r).length}`).join(', ');
}

it('stops every timer and connection of a service whose Redis is down (BullMQ worker, its lock renewal, reconnects)', async () => {
  const before = process.getActiveResourcesInfo();
  const svc = await startService({ READY_CHECK_REDIS: '1', REDIS_URL: 'redis://127.0.0.1:1' }, { wipe: false });
  expect((await svc.http('GET', '/ready')).status).toBe(503);
  await svc.stop();
  // Closing sockets and cleared timers go within a few turns of the event loop; a reconnect loop never does.
  await eventually(async () => resources(before), '', 20_000);
}, 120_000);
