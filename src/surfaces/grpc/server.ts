// gRPC (contract 4.5): each method translated to a registry route and run through the pipeline; health and reflection.
import {
  Server,
  ServerCredentials,
  loadPackageDefinition,
  type GrpcObject,
  type Metadata,
  type ServerUnaryCall,
  type ServerWritableStream,
  type ServiceClientConstructor,
  type ServiceDefinition,
  type UntypedServiceImplementation,
  type sendUnaryData,
} from '@grpc/grpc-js';
import { ReflectionService } from '@grpc/reflection';
import { HealthImplementation } from 'grpc-health-check';
import { AppError } from '../../errors.js';
import type { Activity } from '../../services/activity.js';
import { followChanges } from '../follow.js';
import type { Caller, Pipeline } from '../pipeline.js';
import { grpcBindings, type BoundPaged, type BoundUnary } from './bindings.js';
import { grpcChange } from './methods.js';
import { loadDefinition, SERVICE } from './proto.js';
import { reflectionDefinition } from './reflection.js';
import { grpcStatus } from './status.js';

type Msg = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export interface GrpcDeps {
  pipeline: Pipeline;
  activity: Activity;
  host: string;
  port: number;
  /** Largest message taken or sent (BODY_LIMIT). */
  maxMessageBytes: number;
  /** Whether the service is ready (the health service answers SERVING then). */
  ready(): Promise<boolean>;
}

const HEALTH_EVERY_MS = 5000;
const PAGE = 1000;

/** Metadata as the headers the pipeline reads credentials and the W3C trace context from. */
function callerOf(metadata: Metadata, peer: string): Caller {
  const first = (k: string) => {
    const v = metadata.get(k)[0];
    return v === undefined ? undefined : String(v);
  };
  // "ipv4:127.0.0.1:5000" or "ipv6:[::1]:5000": the address without its port, as rate limits count it.
  const bare = peer.replace(/^ipv[46]:/, '');
  const ip = bare.startsWith('[') ? bare.slice(1, bare.indexOf(']')) : bare.replace(/:\d+$/, '');
  return {
    transport: 'grpc',
    ip,
    headers: { authorization: first('authorization'), masterkey: first('masterkey'), traceparent: first('traceparent'), tracestate: first('tracestate') },
  };
}

/** Writes with backpressure: resolves once the stream can take more, or is gone (cancelled, closed). */
const written = (call: ServerWritableStream<Msg, Msg>, msg: Msg, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted || call.write(msg)) return resolve();
    const done = () => {
      call.off('drain', done);
      signal.removeEventListener('abort', done);
      resolve();
    };
    call.once('drain', done);
    signal.addEventListener('abort', done, { once: true });
  });
/** A request whose bytes are not a message of its type; answered INVALID_ARGUMENT, as REST answers a body that is not JSON. */
const UNDECODABLE = Symbol('undecodable');
const undecodable = () => new AppError('BAD_REQUEST', 'The request is not a valid message of its type');

/** The service with decoding that cannot throw: grpc-js answers a throwing decoder with INTERNAL, a server fault. */
function tolerant(service: ServiceDefinition): ServiceDefinition {
  return Object.fromEntries(Object.entries(service).map(([name, m]) => [name, {
    ...m,
    requestDeserialize: (bytes: Buffer) => {
      try {
        return m.requestDeserialize(bytes);
      } catch {
        return { [UNDECODABLE]: true };
      }
    },
  }])) as ServiceDefinition;
}

/** Streams open at once on one connection (HTTP/2 SETTINGS_MAX_CONCURRENT_STREAMS). */
const MAX_STREAMS = 100;

export class GrpcTransport {
  private server: Server | null = null;
  private healthTimer: NodeJS.Timeout | null = null;
  private readonly streams = new Set<AbortController>();
  private stopping = false;

  constructor(private readonly deps: GrpcDeps) {}

  /** gRPC's one error mapping: anything thrown, as the status a call ends with. */
  private status(e: unknown, where: string) {
    return grpcStatus(this.deps.pipeline.neutral(e, `gRPC ${where}`));
  }

  private unary(m: BoundUnary) {
    const { pipeline } = this.deps;
    return (call: ServerUnaryCall<Msg, Msg>, callback: sendUnaryData<Msg>) => {
      const caller = callerOf(call.metadata, call.getPeer());
      if (UNDECODABLE in call.request) return void callback(this.status(undecodable(), m.route));
      // The request's translation runs inside the chain: a throw there is answered (and logged), not left to grpc-js.
      Promise.resolve().then(() => pipeline.call('admin', m.route, m.input(call.request), caller))
        .then((reply) => m.output((reply.body ?? {}) as Msg, reply))
        .then((out) => callback(null, out), (e: unknown) => callback(this.status(e, m.route)))
        .catch((e: unknown) => pipeline.log.error({ err: e, route: m.route }, 'gRPC answer not sent'));
    };
  }

  /** Runs a server stream until it ends, fails, or the client cancels; errors end it with their status. */
  private streaming(name: string, body: (call: ServerWritableStream<Msg, Msg>, caller: Caller, signal: AbortSignal) => Promise<void>) {
    return (call: ServerWritableStream<Msg, Msg>) => {
      const abort = new AbortController();
      this.streams.add(abort);
      call.on('cancelled', () => abort.abort());
      call.on('close', () => abort.abort());
      const fail = (e: unknown) => {
        // A status error on the call itself is what grpc-js sends as the stream's status (destroy would send none).
        try {
          call.emit('error', this.status(e, name));
        } catch { /* the call is gone */ }
      };
      const run = UNDECODABLE in call.request ? Promise.reject(undecodable()) : body(call, callerOf(call.metadata, call.getPeer()), abort.signal);
      run.then(
        () => (this.stopping ? fail(new AppError('STORE_UNAVAILABLE', 'The service is stopping; resume from the last revision received')) : call.end()),
        fail,
      ).finally(() => this.streams.delete(abort));
    };
  }

  /** Every item of a paged route, page by page, each written as its own message. */
  private paged(name: string, m: BoundPaged) {
    const { pipeline } = this.deps;
    return this.streaming(name, async (call, caller, signal) => {
      const raw = m.input(call.request);
      for (let skip = 0; !signal.aborted; skip += PAGE) {
        const query = { ...(raw.query as Record<string, string>), skip: String(skip), limit: String(PAGE) };
        const body = (await pipeline.call('admin', m.route, { ...raw, query }, caller)).body as Msg;
        const items = m.items(body);
        for (const item of items) await written(call, m.message(item, body), signal);
        if (items.length < PAGE) return;
      }
    });
  }

  private watch(name: string, after: (req: Msg) => number) {
    const { pipeline, activity } = this.deps;
    return this.streaming(name, async (call, caller, signal) => {
      for await (const page of followChanges(pipeline, caller, after(call.request), activity, signal)) {
        await written(call, { changes: page.changes.map(grpcChange), nextRevision: page.next }, signal);
      }
    });
  }

  /** Listens on the port; resolves with the port bound (0 picks a free one). */
  async start(): Promise<number> {
    const definition = loadDefinition();
    const pkg = loadPackageDefinition(definition) as unknown as { authzgraph: { v1: GrpcObject } };
    const service = (pkg.authzgraph.v1.AuthzGraph as ServiceClientConstructor).service;
    const impl: UntypedServiceImplementation = {};
    for (const [name, m] of Object.entries(grpcBindings(this.deps.pipeline.registry.all()))) {
      impl[name] = m.kind === 'unary' ? this.unary(m) : m.kind === 'paged' ? this.paged(name, m) : this.watch(name, m.after);
    }
    const server = new Server({
      'grpc.max_receive_message_length': this.deps.maxMessageBytes,
      'grpc.max_send_message_length': 4 * this.deps.maxMessageBytes,
      'grpc.keepalive_time_ms': 60_000,
      'grpc.keepalive_timeout_ms': 20_000,
      'grpc.max_concurrent_streams': MAX_STREAMS,
    });
    server.addService(tolerant(service), impl);
    const health = new HealthImplementation({ '': 'NOT_SERVING', [SERVICE]: 'NOT_SERVING' });
    health.addToServer(server);
    new ReflectionService(reflectionDefinition()).addToServer(server);
    const setHealth = async () => {
      const status = (await this.deps.ready().catch(() => false)) ? 'SERVING' : 'NOT_SERVING';
      health.setStatus('', status);
      health.setStatus(SERVICE, status);
    };
    await setHealth();
    this.healthTimer = setInterval(() => void setHealth(), HEALTH_EVERY_MS);
    this.healthTimer.unref();
    const host = this.deps.host.includes(':') ? `[${this.deps.host}]` : this.deps.host;
    const port = await new Promise<number>((resolve, reject) => {
      server.bindAsync(`${host}:${this.deps.port}`, ServerCredentials.createInsecure(), (err, bound) => (err ? reject(err) : resolve(bound)));
    });
    this.server = server;
    return port;
  }

  /** Ends the streams (Watch, lookups), lets unary calls in flight finish (bounded), then closes. */
  async stop(): Promise<void> {
    if (this.healthTimer) clearInterval(this.healthTimer);
    // Streams end with UNAVAILABLE: a watcher resumes elsewhere from the last revision it received.
    this.stopping = true;
    for (const s of this.streams) s.abort();
    const server = this.server;
    if (!server) return;
    await new Promise<void>((resolve) => {
      const force = setTimeout(() => {
        server.forceShutdown();
        resolve();
      }, 5000);
      server.tryShutdown(() => {
        clearTimeout(force);
        resolve();
      });
    });
  }
}
