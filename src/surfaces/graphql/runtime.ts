// GraphQL's lazily loaded half (Apollo Server, graphql-js, the armor and both schema builders), gathered in one module.
// One dynamic import loads it all: two at once (the schema builder's and Apollo's, or the admin and client surfaces'
// first requests) share modules, and Jest's VM linker fails such a pair now and then with "request for
// '@escape.tech/graphql-armor' is not in cache" (nodejs/node#33216), a 500 on a cold first request in the tests.
export { adminSchema } from './admin-schema.js';
export { apolloHandler } from './apollo-handler.js';
export { clientSchema, usableSchemas } from './client-schema.js';
