import tseslint from 'typescript-eslint';

/**
 * One way to reach a team's data (docs/adr/0065): under services/*\/src, a team's collections are
 * reached only through kit's data layer (`scoped(models, scope)` and its named ways across teams).
 * These are the calls and filters that would go around it; deploy/test/data-access.test.ts shows
 * each one firing. Model files (a schema and its model) are the one place a model is built.
 */
const QUERY_METHODS =
  'find|findOne|countDocuments|exists|updateOne|updateMany|replaceOne|deleteOne|deleteMany|findOneAndUpdate|findOneAndDelete|findOneAndReplace|leanFind|leanFindOne|leanCount|leanPage|leanFindOneAndUpdate';
const SCOPE_KEY = "Property[key.name=/^(teamId|mode)$/]";
const SCOPE_MESSAGE = 'The scope is added by kit\'s data layer (scoped(models, scope)): a filter never names teamId or mode (docs/adr/0065).';
export const dataAccessRules = {
  'no-restricted-imports': [
    'error',
    {
      paths: [
        {
          name: '@helpdesk/kit',
          importNames: ['collectionOf'],
          message: "A team's collections are reached through kit's data layer: scoped(models, scope).<collection> (docs/adr/0065).",
        },
        { name: 'mongodb', message: "The driver is reached through kit's data layer (a handle's lean… paths, acrossTeams), never directly (docs/adr/0065)." },
      ],
    },
  ],
  'no-restricted-syntax': [
    'error',
    { selector: `CallExpression[callee.property.name=/^(${QUERY_METHODS})$/] > ObjectExpression:first-child > ${SCOPE_KEY}`, message: SCOPE_MESSAGE },
    { selector: `Property[key.name='$match'] > ObjectExpression > ${SCOPE_KEY}`, message: SCOPE_MESSAGE },
    { selector: `Property[key.name='filter'] > ObjectExpression > ${SCOPE_KEY}`, message: SCOPE_MESSAGE },
    {
      selector: "MemberExpression[property.name='collection']",
      message: "A model's driver collection goes around the data layer: use a handle's lean… paths, or acrossTeams(models) for a sweep across teams (docs/adr/0065).",
    },
    {
      selector: "MemberExpression[object.name='conn'][property.name=/^(db|models|collection|model)$/]",
      message: "The connection's models and database go around the data layer: declare the collection in collections.ts and reach it through scoped(models, scope) (docs/adr/0065).",
    },
    {
      selector: "MemberExpression[object.name='mongoose'][property.name=/^(model|models|connection|connections|createConnection|connect)$/]",
      message: "mongoose's own models and connections go around the data layer: a service's collections are declared in collections.ts and reached through scoped(models, scope) (docs/adr/0065).",
    },
    {
      selector: 'CallExpression[callee.name=/[a-z]Model$/]',
      message: 'A model is built in its model file and declared once in collections.ts; elsewhere it is reached through scoped(models, scope) (docs/adr/0065).',
    },
  ],
};


export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', 'data/**', 'coverage/**', '**/*.js', '**/*.mjs'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      'no-console': 'off',
    },
  },
  {
    files: ['services/*/src/**/*.ts'],
    ignores: ['services/*/src/**/model.ts', 'services/*/src/collections.ts'],
    rules: dataAccessRules,
  },
);
