// GraphQL document limits, enforced before any field runs: graphql-js's token limit and graphql-armor's rules.
import type { ApolloServerPlugin } from '@apollo/server';
import { ApolloArmor } from '@escape.tech/graphql-armor';
import { GraphQLError, type ASTVisitor, type ParseOptions, type ValidationContext, type ValidationRule } from 'graphql';

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

/** The field extension marking a field that turns its arguments into a streamed body (an upload). */
export const STREAMED_BODY = 'streamedBody';

/**
 * At most one streamed-body field per document: each writes its own copy of its arguments, so one variable reused by
 * 30 aliases would be 30 uploads (and 30 copies in memory) from one request that its size bound held to one.
 */
export function oneStreamedBody(context: ValidationContext): ASTVisitor {
  let seen = 0;
  return {
    Field(node) {
      if (context.getFieldDef()?.extensions[STREAMED_BODY] !== true || ++seen !== 2) return;
      context.reportError(
        new GraphQLError(`At most one upload field (${node.name.value} and the like) per GraphQL request; send the others in requests of their own`, { nodes: node }),
      );
    },
  };
}

/** The Apollo options that hold a document to `l`; a refused document is a 400 VALIDATION_FAILED naming the limit. */
export function documentLimits(l: GraphqlLimits): {
  parseOptions: ParseOptions;
  validationRules: ValidationRule[];
  validationOptions: { hideSuggestions: boolean };
  plugins: ApolloServerPlugin[];
} {
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
    validationRules: [...armor.validationRules as ValidationRule[], oneStreamedBody],
    // Suggestions would be masked above anyway: not making them spares each unknown field or argument a string
    // distance to every field of the schema (hundreds of route fields; a fifth of validating a refused document).
    validationOptions: { hideSuggestions: true },
    plugins: armor.plugins as ApolloServerPlugin[],
  };
}
