// The chat channel contract: a message reaches every started process, the sender's included, and none after stop.
import type { ChatChannel } from '../../src/stores/ports/chat-channel.js';
import { pause, until } from './wait.js';

export function chatChannelContract(make: () => Promise<{ channel(onMessage: (m: string) => void): ChatChannel; cleanup(): Promise<void> }>) {
  let h: Awaited<ReturnType<typeof make>>;
  beforeEach(async () => {
    h = await make();
  });
  afterEach(async () => {
    await h.cleanup();
  });

  describe('chat channel', () => {
    it('broadcasts to every started process, the sender included, until each stops', async () => {
      const [gotA, gotB] = [[] as string[], [] as string[]];
      const a = h.channel((m) => gotA.push(m));
      const b = h.channel((m) => gotB.push(m));
      await a.start();
      await b.start();
      // A subscription is made in the background; a probe tells when both listen.
      await until(async () => {
        await a.publish('probe');
        return gotA.includes('probe') && gotB.includes('probe');
      }, 5000);
      gotA.length = 0;
      gotB.length = 0;
      await a.publish('one');
      expect(await until(() => gotA.includes('one') && gotB.includes('one'), 5000)).toBe(true);
      await b.stop();
      await a.publish('two');
      expect(await until(() => gotA.includes('two'), 5000)).toBe(true);
      await pause(100);
      expect(gotB).not.toContain('two');
      await a.stop();
    });
  });
}
