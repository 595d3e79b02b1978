// testcontainers (v11, Node 20) when a Docker engine answers and has the images; null otherwise.
import type { StartedStack } from '../../infra/stack.js';

const IMAGES = { mongo: 'mongo:7', neo4j: 'neo4j:5.26-community', redis: 'redis:7' };

export async function startContainers(log: (l: string) => void): Promise<StartedStack | null> {
  if (process.env.TEST_INFRA === 'local' || (process.env.MONGO_URL && process.env.NEO4J_URI && process.env.REDIS_URL)) return null;
  let tc: typeof import('testcontainers');
  try {
    tc = await import('testcontainers');
    const client = await Promise.race([
      tc.getContainerRuntimeClient(),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timeout')), 5000)),
    ]);
    for (const image of Object.values(IMAGES)) {
      if (!(await client.image.exists(tc.ImageName.fromString(image)))) {
        log(`docker lacks ${image}; using local launchers`);
        return null;
      }
    }
  } catch {
    log('no Docker engine; using the local launchers');
    return null;
  }
  const { GenericContainer, Wait } = tc;
  const [mongo, neo4j, redis] = await Promise.all([
    new GenericContainer(IMAGES.mongo).withExposedPorts(27017).start(),
    new GenericContainer(IMAGES.neo4j).withEnvironment({ NEO4J_AUTH: 'none' }).withExposedPorts(7687, 7474)
      .withWaitStrategy(Wait.forLogMessage('Started.')).start(),
    new GenericContainer(IMAGES.redis).withExposedPorts(6379).start(),
  ]);
  return {
    urls: {
      MONGO_URL: `mongodb://${mongo.getHost()}:${mongo.getMappedPort(27017)}/authz`,
      NEO4J_URI: `bolt://${neo4j.getHost()}:${neo4j.getMappedPort(7687)}`,
      REDIS_URL: `redis://${redis.getHost()}:${redis.getMappedPort(6379)}`,
    },
    browserUrl: `http://${neo4j.getHost()}:${neo4j.getMappedPort(7474)}/browser/`,
    started: ['mongo (container)', 'neo4j (container)', 'redis (container)'],
    stop: async () => {
      await Promise.all([mongo.stop(), neo4j.stop(), redis.stop()]);
    },
    kill: async () => {
      throw new Error('killing a container is not supported');
    },
  };
}
