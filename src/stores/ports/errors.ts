// Errors adapters throw in neutral terms, so that services never test a store's own error codes.

/** A write would break a unique key: another record has this value already. */
export class DuplicateKey extends Error {
  constructor(message = 'a unique key has this value already') {
    super(message);
    this.name = 'DuplicateKey';
  }
}
