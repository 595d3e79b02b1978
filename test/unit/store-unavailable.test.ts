// Which errors mean a store is out of reach (503 STORE_UNAVAILABLE) and which are bugs or refusals (not 503).
import { MongoNetworkError, MongoNetworkTimeoutError, MongoServerError } from 'mongodb';
import { CommitUnconfirmed } from '../../src/stores/ports/change-log.js';
import { LeaseLost, LeaseTimeout } from '../../src/stores/ports/lease.js';
import { outcomeSettled, storeUnavailable } from '../../src/stores/unavailable.js';

it('names MongoDB for the driver errors of a server that is down, hung or being reconnected to', () => {
  expect(storeUnavailable(new MongoNetworkError('connection refused'))).toBe('MongoDB');
  expect(storeUnavailable(new MongoNetworkTimeoutError('connection 3 to 127.0.0.1:27017 timed out'))).toBe('MongoDB');
  // By name, as the driver names them (some are not exported): no server to select, a pool cleared by a failed handshake,
  // a closed pool, a full wait queue.
  for (const name of ['MongoServerSelectionError', 'PoolClearedOnNetworkError', 'MongoPoolClearedError', 'MongoPoolClosedError', 'MongoWaitQueueTimeoutError',
    'MongoServerClosedError']) {
    expect([name, storeUnavailable(Object.assign(new Error('x'), { name }))]).toEqual([name, 'MongoDB']);
  }
});

it('looks through the wrappers a bulk write puts around a lost connection', () => {
  expect(storeUnavailable({ name: 'MongoBulkWriteError', message: 'x', errorResponse: new MongoNetworkError('socket closed') })).toBe('MongoDB');
  // FerretDB killed during an insertMany: the bulk error carries Node's own socket error (seen in store-faults).
  const ended = Object.assign(new Error('This socket has been ended by the other party'), { code: 'EPIPE' });
  expect(storeUnavailable({ name: 'MongoBulkWriteError', message: ended.message, errorResponse: ended })).toBe('MongoDB');
  expect(storeUnavailable({ name: 'MongoBulkWriteError', message: 'x', errorResponse: { message: 'socket hang up' } })).toBe('MongoDB');
  // The same socket error outside a Mongo error is not called a MongoDB outage.
  expect(storeUnavailable(ended)).toBeNull();
});

it('names Redis for a commit whose mark in Redis failed, whatever Redis answered', () => {
  expect(storeUnavailable(new CommitUnconfirmed(7, new Error('LOADING Redis is loading the dataset in memory')))).toBe('Redis');
  expect(storeUnavailable(new CommitUnconfirmed(7, new Error("READONLY You can't write against a read only replica.")))).toBe('Redis');
});

it('does not call a refusal or a bug an outage', () => {
  expect(storeUnavailable(new MongoServerError({ code: 11000, errmsg: 'E11000 duplicate key error' }))).toBeNull();
  expect(storeUnavailable(new TypeError('x is undefined'))).toBeNull();
  expect(storeUnavailable(null)).toBeNull();
});

it('answers 503 for the leases of a unit that lapsed while it ran, and for a lease that stayed taken', () => {
  // A unit whose renewals did not land in time is failed and retried: its writes answered 500 INTERNAL in CI before.
  expect(storeUnavailable(new LeaseLost(['authz:lease:index:structure', 'authz:lease:index:p0'], 'a unit of index work'))).toBe('Redis');
  expect(storeUnavailable(new LeaseTimeout('authz:lease:index:p1', 30_000))).toBe('Redis');
});

it('calls a failed call settled only when FerretDB answered that its PostgreSQL failed: a hung server may still apply the others', () => {
  const answer = (message: string) => new MongoServerError({ message, code: 1, ok: 0 });
  expect(outcomeSettled(answer('[msg_insert.go:168] FATAL: terminating connection due to unexpected postmaster exit (SQLSTATE 57P01)'))).toBe(true);
  expect(outcomeSettled(answer('failed to connect to `user=postgres database=postgres`: dial error: connection refused'))).toBe(true);
  expect(outcomeSettled({ name: 'MongoBulkWriteError', message: 'x', errorResponse: answer('FATAL: the database system is starting up (SQLSTATE 57P03)') })).toBe(true);
  // FerretDB gave up waiting, or lost its connection mid-statement: PostgreSQL may still be finishing it.
  expect(outcomeSettled(answer('context deadline exceeded'))).toBe(false);
  expect(outcomeSettled(answer('[msg_insert.go:168] unexpected EOF'))).toBe(false);
  expect(outcomeSettled(answer('write tcp 127.0.0.1:5432: connection reset by peer'))).toBe(false);
  // No answer from the server at all, or another refusal.
  expect(outcomeSettled(new MongoNetworkTimeoutError('connection 3 to 127.0.0.1:27017 timed out'))).toBe(false);
  expect(outcomeSettled(new MongoNetworkError('connection refused'))).toBe(false);
  expect(outcomeSettled(Object.assign(new Error('x'), { name: 'MongoServerSelectionError' }))).toBe(false);
  expect(outcomeSettled(new MongoServerError({ message: 'E11000 duplicate key', code: 11000, ok: 0 }))).toBe(false);
  expect(outcomeSettled(null)).toBe(false);
});
