// GraphQL document limits, enforced before any field runs: graphql-js's token limit and graphql-armor's rules.
import type { ApolloServerPlugin } from '@apollo/server';
import { ApolloArmor } from '@escape.tech/graphql-armor';
import type { ParseOptions, ValidationRule } from 'graphql';

export interface GraphqlLimits {
  /** Nesting of selections (introspection excepted). */
  depth: number;
  aliases: number;
  /** Lexical tokens: bounds parsing and validation (graphql-js's field-overlap rule is quadratic in repeated fields). */
  tokens: number;
  directives: number;
  /** graphql-armor's cost: objects and scalars weighted by depth. */
  cost: number;
}

/** The Apollo options that hold a document to `l`; a refused document is a 400 VALIDATION_FAILED naming the limit. */
export function documentLimits(l: GraphqlLimits): { parseOptions: ParseOptions; validationRules: ValidationRule[]; plugins: ApolloServerPlugin[] } {
  const armor = new ApolloArmor({
    // Tokens are counted by graphql-js's own parser (parseOptions below), which stops reading at the limit.
    maxTokens: { enabled: false },
    maxDepth: { n: l.depth },
    maxAliases: { n: l.aliases },
    maxDirectives: { n: l.directives },
    costLimit: { maxCost: l.cost },
    // "Did you mean …" would list fields to a caller probing the schema.
    blockFieldSuggestion: { enabled: true },
  }).protect();
  return {
    parseOptions: { maxTokens: l.tokens },
    validationRules: armor.validationRules as ValidationRule[],
    plugins: armor.plugins as ApolloServerPlugin[],
  };
}
